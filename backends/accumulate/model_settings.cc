// Model configuration -> ModelSettings.
#include "model_settings.h"

#include <rapidjson/document.h>

#include "common/config_json.h"

namespace inferd::accumulate {
namespace {

using backend_common::StringMember;

INFERD_Error* ConfigError(const std::string& model_name, const std::string& what) {
  const std::string message = "accumulate backend: model '" + model_name + "': " + what;
  return INFERD_ErrorNew(INFERD_ERROR_INVALID_ARG, message.c_str());
}

// The array member `name`, or nullptr when absent or not an array.
const rapidjson::Value* ArrayMember(const rapidjson::Value& object, const char* name) {
  if (!object.IsObject() || !object.HasMember(name) || !object[name].IsArray()) return nullptr;
  return &object[name];
}

// parameters { key: <name> value: { string_value: ... } }, "" when absent.
std::string StringParameter(const rapidjson::Value& config, const char* name) {
  return backend_common::Parameter(config, name).value_or("");
}

// The "true" value of a START, END or READY control: the second entry of
// whichever *_false_true pair it has.
bool ReadFlagControl(const rapidjson::Value& control, const std::string& input,
                     FlagControl* flag) {
  struct Pair {
    const char* member;
    INFERD_DataType datatype;
  };
  for (const Pair& pair : {Pair{"fp32_false_true", INFERD_TYPE_FP32},
                           Pair{"int32_false_true", INFERD_TYPE_INT32},
                           Pair{"bool_false_true", INFERD_TYPE_BOOL}}) {
    const rapidjson::Value* values = ArrayMember(control, pair.member);
    if (values == nullptr || values->Size() != 2) continue;
    const rapidjson::Value& truth = (*values)[1];
    flag->input = input;
    flag->datatype = pair.datatype;
    flag->true_value = truth.IsBool() ? (truth.GetBool() ? 1 : 0)
                                      : (truth.IsNumber() ? truth.GetDouble() : 1);
    return true;
  }
  return false;
}

// Every control of every control_input, sorted out by kind.
INFERD_Error* ReadControls(const rapidjson::Value& batching, ModelSettings* settings) {
  const rapidjson::Value* inputs = ArrayMember(batching, "control_input");
  if (inputs == nullptr) return nullptr;
  for (const auto& input : inputs->GetArray()) {
    const std::string name = StringMember(input, "name");
    const rapidjson::Value* controls = ArrayMember(input, "control");
    if (controls == nullptr) continue;
    for (const auto& control : controls->GetArray()) {
      const std::string kind = StringMember(control, "kind");
      FlagControl* flag = kind == "CONTROL_SEQUENCE_START"   ? &settings->start
                          : kind == "CONTROL_SEQUENCE_END"   ? &settings->end
                          : kind == "CONTROL_SEQUENCE_READY" ? &settings->ready
                                                             : nullptr;
      if (flag != nullptr) {
        if (!ReadFlagControl(control, name, flag)) {
          return ConfigError(settings->model_name, "control input '" + name + "' (" + kind +
                                                       ") has no false/true pair");
        }
        continue;
      }
      if (kind != "CONTROL_SEQUENCE_CORRID") continue;
      const std::string type = StringMember(control, "data_type");
      settings->corrid.input = name;
      settings->corrid.datatype = type == "TYPE_STRING" ? INFERD_TYPE_BYTES
                                  : type == "TYPE_UINT64" ? INFERD_TYPE_UINT64
                                                          : INFERD_TYPE_INVALID;
      if (settings->corrid.datatype == INFERD_TYPE_INVALID) {
        return ConfigError(settings->model_name, "control input '" + name +
                                                     "' (CONTROL_SEQUENCE_CORRID) must be "
                                                     "TYPE_UINT64 or TYPE_STRING, not '" +
                                                     type + "'");
      }
    }
  }
  return nullptr;
}

// sequence_batching.state: at most one, an INT32 value, the running sum.
INFERD_Error* ReadState(const rapidjson::Value& batching, ModelSettings* settings) {
  const rapidjson::Value* states = ArrayMember(batching, "state");
  if (states == nullptr || states->Empty()) return nullptr;
  if (states->Size() > 1) {
    return ConfigError(settings->model_name, "sequence_batching has more than one state; the "
                                             "backend keeps one running sum");
  }
  const rapidjson::Value& state = (*states)[0];
  if (StringMember(state, "data_type") != "TYPE_INT32") {
    return ConfigError(settings->model_name, "sequence_batching state '" +
                                                 StringMember(state, "input_name") +
                                                 "' must be TYPE_INT32 (the running sum)");
  }
  settings->state_input = StringMember(state, "input_name");
  settings->state_output = StringMember(state, "output_name");
  if (settings->state_input.empty() || settings->state_output.empty()) {
    return ConfigError(settings->model_name,
                       "sequence_batching state needs an input_name and an output_name");
  }
  return nullptr;
}

}  // namespace

INFERD_Error* ReadModelSettings(const std::string& model_name, const char* json, size_t size,
                                ModelSettings* settings) {
  rapidjson::Document config;
  config.Parse(json, size);
  settings->model_name = model_name;
  if (config.HasParseError() || !config.IsObject()) {
    return ConfigError(model_name, "the configuration is not a JSON object");
  }
  if (!config.HasMember("sequence_batching") || !config["sequence_batching"].IsObject()) {
    return ConfigError(model_name, "the accumulate backend sums sequences and needs "
                                   "sequence_batching in the configuration");
  }
  const rapidjson::Value& batching = config["sequence_batching"];
  if (INFERD_Error* err = ReadControls(batching, settings)) return err;
  if (INFERD_Error* err = ReadState(batching, settings)) return err;
  if (!settings->implicit_state() && settings->corrid.input.empty()) {
    return ConfigError(model_name,
                       "without sequence_batching state the backend keeps each sequence's sum "
                       "itself, keyed by the sequence id, and needs a control input of kind "
                       "CONTROL_SEQUENCE_CORRID");
  }
  settings->batched = config.HasMember("max_batch_size") && config["max_batch_size"].IsInt64() &&
                      config["max_batch_size"].GetInt64() > 0;
  settings->record_file = StringParameter(config, "record_file");
  return nullptr;
}

}  // namespace inferd::accumulate

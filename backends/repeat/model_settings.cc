// Model configuration -> ModelSettings.
#include "model_settings.h"

#include <rapidjson/document.h>

#include "common/config_json.h"
#include "request_options.h"

namespace inferd::repeat {
namespace {

using backend_common::StringMember;

INFERD_Error* ConfigError(const std::string& model_name, const std::string& what) {
  const std::string message = "repeat backend: model '" + model_name + "': " + what;
  return INFERD_ErrorNew(INFERD_ERROR_INVALID_ARG, message.c_str());
}

// parameters { key: <name> value: { string_value: ... } }, "" when absent.
std::string StringParameter(const rapidjson::Value& config, const char* name) {
  return backend_common::Parameter(config, name).value_or("");
}

// "TYPE_FP32" -> FP32, "TYPE_STRING" -> BYTES.
INFERD_DataType ConfigDataType(const std::string& name) {
  static const std::string kPrefix = "TYPE_";
  if (name.compare(0, kPrefix.size(), kPrefix) != 0) return INFERD_TYPE_INVALID;
  const std::string kserve = name.substr(kPrefix.size());
  return INFERD_StringToDataType(kserve == "STRING" ? "BYTES" : kserve.c_str());
}

bool IsDecoupled(const rapidjson::Document& config) {
  if (!config.HasMember("model_transaction_policy")) return false;
  const auto& policy = config["model_transaction_policy"];
  return policy.IsObject() && policy.HasMember("decoupled") && policy["decoupled"].IsBool() &&
         policy["decoupled"].GetBool();
}

}  // namespace

INFERD_Error* ReadModelSettings(const std::string& model_name, const char* json, size_t size,
                                ModelSettings* settings) {
  rapidjson::Document config;
  config.Parse(json, size);
  if (config.HasParseError() || !config.IsObject()) {
    return ConfigError(model_name, "the configuration is not a JSON object");
  }
  // A non-decoupled model may send only one response per request; refusing
  // here names the fix instead of failing every request later.
  if (!IsDecoupled(config)) {
    return ConfigError(model_name,
                       "the repeat backend sends many responses per request and needs "
                       "model_transaction_policy { decoupled: true }");
  }
  const auto* inputs = config.HasMember("input") ? &config["input"] : nullptr;
  const auto* outputs = config.HasMember("output") ? &config["output"] : nullptr;
  if (inputs == nullptr || !inputs->IsArray() || inputs->Empty()) {
    return ConfigError(model_name, "needs an input: the values to send back one by one");
  }
  if (outputs == nullptr || !outputs->IsArray() || outputs->Empty()) {
    return ConfigError(model_name, "needs an output: each response carries one value in it");
  }
  settings->model_name = model_name;
  settings->datatype = ConfigDataType(StringMember((*inputs)[0], "data_type"));
  if (settings->datatype == INFERD_TYPE_INVALID) {
    return ConfigError(model_name, "input 0 has no known data_type");
  }
  if (ConfigDataType(StringMember((*outputs)[0], "data_type")) != settings->datatype) {
    return ConfigError(model_name, "output 0 carries values of input 0 and needs its data_type");
  }
  settings->value_output = StringMember((*outputs)[0], "name");
  if (outputs->Size() > 1) {
    if (ConfigDataType(StringMember((*outputs)[1], "data_type")) != INFERD_TYPE_INT32) {
      return ConfigError(model_name, "output 1 carries the response's index and must be "
                                     "TYPE_INT32");
    }
    settings->index_output = StringMember((*outputs)[1], "name");
  }
  settings->batched = config.HasMember("max_batch_size") && config["max_batch_size"].IsInt64() &&
                      config["max_batch_size"].GetInt64() > 0;
  const std::string delay = StringParameter(config, "delay_ms");
  if (!delay.empty() && !ParseDelayMs(delay.c_str(), &settings->delay_ms)) {
    return ConfigError(model_name, "parameter delay_ms '" + delay +
                                   "' is not a whole number of milliseconds");
  }
  settings->record_file = StringParameter(config, "record_file");
  return nullptr;
}

}  // namespace inferd::repeat

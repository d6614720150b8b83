// Reading the common model settings (see model_settings.h).
#include "common/model_settings.h"

namespace inferd::backend_common {
namespace {

std::string ReadTensors(const JsonValue* array, const char* kind, const TensorRules& rules,
                        std::vector<TensorSpec>* out) {
  if (array == nullptr || !array->IsArray()) return "";
  for (const JsonValue& entry : array->GetArray()) {
    TensorSpec spec;
    if (const JsonValue* name = Member(entry, "name"); name && name->IsString()) {
      spec.name = name->GetString();
    }
    const std::string what = std::string(kind) + " '" + spec.name + "'";
    const JsonValue* data_type = Member(entry, "data_type");
    const std::string type_name =
        data_type && data_type->IsString() ? data_type->GetString() : "TYPE_INVALID";
    spec.type = rules.types->FromConfigName(type_name);
    if (spec.type == nullptr) {
      return what + " has data_type " + type_name + rules.type_refusal(type_name);
    }
    if (auto err = ParseDims(Member(entry, "dims"), what + " dims", &spec.dims); !err.empty()) {
      return err;
    }
    if (const JsonValue* reshape = Member(entry, "reshape")) {
      if (*rules.reshape_refusal != '\0') return what + " has a reshape" + rules.reshape_refusal;
      std::vector<int64_t> shape;
      if (auto err = ParseDims(Member(*reshape, "shape"), what + " reshape", &shape);
          !err.empty()) {
        return err;
      }
      spec.reshape = std::move(shape);
    }
    out->push_back(std::move(spec));
  }
  return "";
}

}  // namespace

std::string ReadModelSettings(std::string_view config_json, const TensorRules& rules,
                              ModelSettings* settings, rapidjson::Document* doc) {
  doc->Parse(config_json.data(), config_json.size());
  if (doc->HasParseError() || !doc->IsObject()) {
    return "the model configuration is not a JSON object";
  }
  *settings = ModelSettings{};
  if (const JsonValue* name = Member(*doc, "name"); name && name->IsString()) {
    settings->name = name->GetString();
  }
  if (const JsonValue* mbs = Member(*doc, "max_batch_size")) {
    settings->max_batch_size = AsInt(*mbs).value_or(0);
  }
  if (const JsonValue* file = Member(*doc, "default_model_filename"); file && file->IsString()) {
    settings->default_model_filename = file->GetString();
  }
  if (auto err = ReadTensors(Member(*doc, "input"), "input", rules, &settings->inputs);
      !err.empty()) {
    return err;
  }
  if (auto err = ReadTensors(Member(*doc, "output"), "output", rules, &settings->outputs);
      !err.empty()) {
    return err;
  }
  settings->parameters = Parameters(*doc);
  settings->instance_count = InstanceCount(*doc);
  return "";
}

}  // namespace inferd::backend_common

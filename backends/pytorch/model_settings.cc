// Parsing of the model configuration JSON into ModelSettings (see model_settings.h).
#include "model_settings.h"

#include <cstdlib>
#include <optional>

#include "rapidjson/document.h"

namespace inferd::pytorch {
namespace {

using rapidjson::Value;

// An integer written as a JSON number or as a string of digits.
std::optional<int64_t> AsInt(const Value& value) {
  if (value.IsInt64()) return value.GetInt64();
  if (value.IsUint64()) return static_cast<int64_t>(value.GetUint64());
  if (value.IsString()) {
    char* end = nullptr;
    const long long parsed = std::strtoll(value.GetString(), &end, 10);
    if (end != value.GetString() && *end == '\0') return parsed;
  }
  return std::nullopt;
}

const Value* Member(const Value& object, const char* name) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

std::string ParseTensors(const Value* array, const char* kind, std::vector<TensorSpec>* out) {
  if (array == nullptr || !array->IsArray()) return "";
  for (const Value& entry : array->GetArray()) {
    TensorSpec spec;
    if (const Value* name = Member(entry, "name"); name && name->IsString()) {
      spec.name = name->GetString();
    }
    const std::string what = std::string(kind) + " '" + spec.name + "'";
    const Value* data_type = Member(entry, "data_type");
    const std::string type_name =
        data_type && data_type->IsString() ? data_type->GetString() : "TYPE_INVALID";
    spec.type = TypeFromConfigName(type_name);
    if (spec.type == nullptr) {
      return what + " has data_type " + type_name +
             (IsUnsignedWithoutTorchType(type_name)
                  ? ", which LibTorch has no tensor type for"
                  : ", which the pytorch backend does not serve");
    }
    if (const Value* dims = Member(entry, "dims"); dims && dims->IsArray()) {
      for (const Value& dim : dims->GetArray()) {
        auto value = AsInt(dim);
        if (!value) return what + " dims holds a value that is not an integer";
        spec.dims.push_back(*value);
      }
    }
    if (Member(entry, "reshape") != nullptr) {
      return what + " has a reshape, which the pytorch backend does not apply";
    }
    out->push_back(std::move(spec));
  }
  return "";
}

}  // namespace

std::string ParseModelSettings(std::string_view config_json, ModelSettings* settings) {
  rapidjson::Document doc;
  doc.Parse(config_json.data(), config_json.size());
  if (doc.HasParseError() || !doc.IsObject()) return "the model configuration is not a JSON object";
  *settings = ModelSettings{};
  if (const Value* name = Member(doc, "name"); name && name->IsString()) {
    settings->name = name->GetString();
  }
  if (const Value* mbs = Member(doc, "max_batch_size")) {
    settings->max_batch_size = AsInt(*mbs).value_or(0);
  }
  if (const Value* file = Member(doc, "default_model_filename"); file && file->IsString()) {
    settings->default_model_filename = file->GetString();
  }
  if (auto err = ParseTensors(Member(doc, "input"), "input", &settings->inputs); !err.empty()) {
    return err;
  }
  if (auto err = ParseTensors(Member(doc, "output"), "output", &settings->outputs); !err.empty()) {
    return err;
  }
  if (const Value* sequence = Member(doc, "sequence_batching")) {
    const Value* controls = Member(*sequence, "control_input");
    const Value* states = Member(*sequence, "state");
    if ((controls && controls->IsArray() && !controls->Empty()) ||
        (states && states->IsArray() && !states->Empty())) {
      return "sequence_batching control inputs and implicit state are not supported by the "
             "pytorch backend";
    }
  }
  if (const Value* params = Member(doc, "parameters"); params && params->IsObject()) {
    for (const auto& param : params->GetObject()) {
      const Value* value = Member(param.value, "string_value");
      settings->parameters[param.name.GetString()] =
          value && value->IsString() ? value->GetString() : "";
    }
  }
  if (const Value* groups = Member(doc, "instance_group"); groups && groups->IsArray()) {
    int count = 0;
    for (const Value& group : groups->GetArray()) {
      const Value* n = Member(group, "count");
      count += n ? static_cast<int>(AsInt(*n).value_or(1)) : 1;
    }
    settings->instance_count = count > 0 ? count : 1;
  }
  return "";
}

}  // namespace inferd::pytorch

// Parsing of the model configuration JSON into ModelSettings (see model_settings.h).
#include "model_settings.h"

#include "common/config_json.h"
#include "rapidjson/document.h"

namespace inferd::pytorch {
namespace {

using backend_common::Member;
using rapidjson::Value;

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
    if (auto err = backend_common::ParseDims(Member(entry, "dims"), what + " dims", &spec.dims);
        !err.empty()) {
      return err;
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
    settings->max_batch_size = backend_common::AsInt(*mbs).value_or(0);
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
  settings->parameters = backend_common::Parameters(doc);
  settings->instance_count = backend_common::InstanceCount(doc);
  return "";
}

}  // namespace inferd::pytorch

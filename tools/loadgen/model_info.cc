// KServe v2 model metadata and Triton config JSON into ModelInfo (RapidJSON).
#include "loadgen/model_info.h"

#include <rapidjson/document.h>

namespace inferd::loadgen {
namespace {

std::string ParseTensors(const std::string& model, const rapidjson::Value& metadata,
                         const char* field, std::vector<TensorSpec>* tensors) {
  if (!metadata.HasMember(field)) return "";
  const rapidjson::Value& list = metadata[field];
  if (!list.IsArray()) return "model '" + model + "' metadata: '" + field + "' is not an array";
  for (const rapidjson::Value& tensor : list.GetArray()) {
    if (!tensor.IsObject() || !tensor.HasMember("name") || !tensor["name"].IsString() ||
        !tensor.HasMember("datatype") || !tensor["datatype"].IsString() ||
        !tensor.HasMember("shape") || !tensor["shape"].IsArray()) {
      return "model '" + model + "' metadata: an entry of '" + field +
             "' lacks name, datatype or shape";
    }
    TensorSpec spec{tensor["name"].GetString(), tensor["datatype"].GetString(), {}};
    for (const rapidjson::Value& dim : tensor["shape"].GetArray()) {
      if (!dim.IsInt64()) return "model '" + model + "' metadata: " + spec.name + ".shape is not integers";
      spec.shape.push_back(dim.GetInt64());
    }
    tensors->push_back(std::move(spec));
  }
  return "";
}

}  // namespace

std::string ParseHttpModelInfo(const std::string& model, const std::string& metadata_json,
                               const std::string& config_json, ModelInfo* info) {
  rapidjson::Document metadata;
  metadata.Parse(metadata_json.c_str(), metadata_json.size());
  if (metadata.HasParseError() || !metadata.IsObject()) {
    return "model '" + model + "': the metadata is not a JSON object: " + metadata_json.substr(0, 200);
  }
  info->name = model;
  std::string error = ParseTensors(model, metadata, "inputs", &info->inputs);
  if (error.empty()) error = ParseTensors(model, metadata, "outputs", &info->outputs);
  if (!error.empty()) return error;
  if (info->inputs.empty()) return "model '" + model + "' metadata lists no inputs";

  info->max_batch_size = 0;
  rapidjson::Document config;
  if (!config_json.empty()) config.Parse(config_json.c_str(), config_json.size());
  if (!config_json.empty() && !config.HasParseError() && config.IsObject() &&
      config.HasMember("max_batch_size") && config["max_batch_size"].IsInt64()) {
    info->max_batch_size = config["max_batch_size"].GetInt64();
  } else {
    // No config: a model batches when every input's first dimension is -1.
    bool all_variable_first = true;
    for (const TensorSpec& input : info->inputs) {
      all_variable_first &= !input.shape.empty() && input.shape[0] == -1;
    }
    if (all_variable_first) info->max_batch_size = 1;
  }
  return "";
}

}  // namespace inferd::loadgen

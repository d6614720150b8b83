#include "llama_settings.h"

#include <set>

#include "common/config_json.h"
#include "common/parameter_values.h"
#include "rapidjson/document.h"

namespace inferd::llamacpp {

namespace bc = inferd::backend_common;

namespace {

const std::set<std::string>& KvCacheTypes() {
  static const std::set<std::string> types = {"f32",  "f16",  "bf16", "q8_0",
                                              "q4_0", "q4_1", "q5_0", "q5_1"};
  return types;
}

}  // namespace

std::string ParseLlamaSettings(std::string_view json, LlamaSettings* out) {
  rapidjson::Document config;
  config.Parse(json.data(), json.size());
  if (config.HasParseError() || !config.IsObject()) {
    return "llamacpp backend: the model configuration is not a JSON object";
  }
  out->model_filename = bc::StringMember(config, "default_model_filename");
  const std::map<std::string, std::string> parameters = bc::Parameters(config);
  bc::ParameterReader reader(parameters, bc::ParameterReader::Keep::kFirst);
  out->context_size = reader.Int("context_size", "an integer >= 16", 16).value_or(out->context_size);
  out->parallel = reader.Int("parallel", "an integer >= 1", 1).value_or(out->parallel);
  out->threads = reader.Int("threads", "an integer >= 0", 0).value_or(out->threads);
  out->batch_size = reader.Int("batch_size", "an integer >= 1", 1).value_or(out->batch_size);
  if (auto seed = reader.Int("seed", "an integer >= 0", 0)) out->seed = static_cast<uint32_t>(*seed);
  if (!reader.error().empty()) return "llamacpp backend: " + reader.error();
  if (auto it = parameters.find("kv_cache_type"); it != parameters.end()) {
    if (!KvCacheTypes().count(it->second)) {
      return "llamacpp backend: parameter 'kv_cache_type' is '" + it->second +
             "', not one of f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1";
    }
    out->kv_cache_type = it->second;
  }
  if (auto it = parameters.find("chat_template"); it != parameters.end()) {
    out->chat_template = it->second;
  }
  if (out->context_size < out->parallel * 8) {
    return "llamacpp backend: parameter 'context_size' (" + std::to_string(out->context_size) +
           ") leaves fewer than 8 tokens to each of the " + std::to_string(out->parallel) +
           " 'parallel' sequences";
  }
  return "";
}

}  // namespace inferd::llamacpp

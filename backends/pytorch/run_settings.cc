// Run settings from the model's parameters (see run_settings.h).
#include "run_settings.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

namespace inferd::pytorch {
namespace {

constexpr const char* kIgnoredBooleans[] = {
    "ENABLE_NVFUSER",       "DISABLE_CUDNN",        "ENABLE_CACHE_CLEANING",
    "ENABLE_WEIGHT_SHARING", "ENABLE_JIT_EXECUTOR", "ENABLE_JIT_PROFILING",
    "ENABLE_TENSOR_FUSER"};

// The count in parameter `key`, if set: an integer >= 0.
std::optional<int> CountParameter(const ModelSettings& model, const std::string& key,
                                  std::string* error) {
  auto it = model.parameters.find(key);
  if (it == model.parameters.end()) return std::nullopt;
  const std::string& text = it->second;
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) {
    if (error->empty()) *error = "parameter '" + key + "' is '" + text + "', not a count >= 0";
    return std::nullopt;
  }
  return value;
}

std::optional<bool> BoolParameter(const ModelSettings& model, const std::string& key,
                                  std::string* error) {
  auto it = model.parameters.find(key);
  if (it == model.parameters.end()) return std::nullopt;
  std::string text = it->second;
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (text == "1" || text == "true" || text == "on") return true;
  if (text == "0" || text == "false" || text == "off") return false;
  if (error->empty()) *error = "parameter '" + key + "' is '" + it->second + "', not true/false";
  return std::nullopt;
}

}  // namespace

std::string ResolveRunSettings(const ModelSettings& model, unsigned cores, RunSettings* settings) {
  *settings = RunSettings{};
  std::string error;
  const auto intra = CountParameter(model, "INTRA_OP_THREAD_COUNT", &error);
  const auto inter = CountParameter(model, "INTER_OP_THREAD_COUNT", &error);
  const auto inference_mode = BoolParameter(model, "INFERENCE_MODE", &error);
  const auto unoptimized = BoolParameter(model, "DISABLE_OPTIMIZED_EXECUTION", &error);
  for (const char* key : kIgnoredBooleans) BoolParameter(model, key, &error);
  if (!error.empty()) return error;
  const int fair_share =
      std::max(1, static_cast<int>(cores) / std::max(1, model.instance_count));
  settings->intra_op_threads = intra && *intra > 0 ? *intra : fair_share;
  settings->inter_op_threads = inter.value_or(0);
  settings->inference_mode = inference_mode.value_or(true);
  settings->optimized_execution = !unoptimized.value_or(false);
  return "";
}

}  // namespace inferd::pytorch

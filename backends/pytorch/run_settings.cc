// Run settings from the model's parameters (see run_settings.h).
#include "run_settings.h"

#include <algorithm>
#include <optional>

#include "common/parameter_values.h"

namespace inferd::pytorch {
namespace {

constexpr const char* kIgnoredBooleans[] = {
    "ENABLE_NVFUSER",       "DISABLE_CUDNN",        "ENABLE_CACHE_CLEANING",
    "ENABLE_WEIGHT_SHARING", "ENABLE_JIT_EXECUTOR", "ENABLE_JIT_PROFILING",
    "ENABLE_TENSOR_FUSER"};

}  // namespace

std::string ResolveRunSettings(const ModelSettings& model, unsigned cores, RunSettings* settings) {
  *settings = RunSettings{};
  using backend_common::ParameterReader;
  ParameterReader read(model.parameters, ParameterReader::Keep::kFirst);
  constexpr const char* kCount = "a count >= 0";
  constexpr const char* kSwitch = "true/false";
  const auto intra = read.Int("INTRA_OP_THREAD_COUNT", kCount, 0);
  const auto inter = read.Int("INTER_OP_THREAD_COUNT", kCount, 0);
  const auto inference_mode = read.Switch("INFERENCE_MODE", kSwitch);
  const auto unoptimized = read.Switch("DISABLE_OPTIMIZED_EXECUTION", kSwitch);
  for (const char* key : kIgnoredBooleans) read.Switch(key, kSwitch);
  if (!read.error().empty()) return read.error();
  const int fair_share =
      std::max(1, static_cast<int>(cores) / std::max(1, model.instance_count));
  settings->intra_op_threads = intra && *intra > 0 ? *intra : fair_share;
  settings->inter_op_threads = inter.value_or(0);
  settings->inference_mode = inference_mode.value_or(true);
  settings->optimized_execution = !unoptimized.value_or(false);
  return "";
}

}  // namespace inferd::pytorch

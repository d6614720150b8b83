// Session settings from the model's parameters (see session_settings.h).
#include "session_settings.h"

#include <algorithm>
#include <thread>

#include "common/parameter_values.h"

namespace inferd::onnxruntime {

unsigned MachineCores() {
  // Asked once: glibc reads /sys/devices/system/cpu/online on every call, and
  // each model's load asks twice.
  static const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return cores;
}

std::string ResolveSessionSettings(const ModelSettings& model, unsigned cores,
                                   SessionSettings* settings) {
  *settings = SessionSettings{};
  const int fair_share =
      std::max(1, static_cast<int>(cores) / std::max(1, model.instance_count));

  using backend_common::ParameterReader;
  ParameterReader read(model.parameters, ParameterReader::Keep::kLast);
  constexpr const char* kInteger = "an integer";
  constexpr const char* kSwitch = "0/1/true/false";
  const auto intra = read.Int("intra_op_thread_count", kInteger);
  const auto inter = read.Int("inter_op_thread_count", kInteger);
  const auto mode = read.Int("execution_mode", kInteger);
  settings->mem_arena = read.Switch("enable_mem_arena", kSwitch);
  settings->mem_pattern = read.Switch("enable_mem_pattern", kSwitch);
  const auto share = read.Switch("share_session_between_instances", kSwitch);
  if (!read.error().empty()) return read.error();
  if ((intra && *intra < 0) || (inter && *inter < 0)) {
    return "parameters 'intra_op_thread_count' and 'inter_op_thread_count' must be >= 0";
  }
  if (mode && *mode != 0 && *mode != 1) {
    return "parameter 'execution_mode' is " + std::to_string(*mode) +
           "; it must be 0 (sequential) or 1 (parallel)";
  }
  settings->intra_op_threads = intra && *intra > 0 ? *intra : fair_share;
  settings->inter_op_threads = inter && *inter > 0 ? *inter : fair_share;
  settings->execution_mode = mode.value_or(0) == 1 ? ORT_PARALLEL : ORT_SEQUENTIAL;

  switch (model.graph_level.value_or(0)) {
    case -1: settings->optimization_level = ORT_ENABLE_BASIC; break;
    case 1: settings->optimization_level = ORT_ENABLE_EXTENDED; break;
    case 2: settings->optimization_level = ORT_DISABLE_ALL; break;
    default: settings->optimization_level = ORT_ENABLE_ALL; break;
  }
  for (const auto& [key, value] : model.parameters) {
    if (key.rfind("session.", 0) == 0) settings->config_entries.emplace_back(key, value);
  }
  // ORT's pool threads spin while waiting for work by default. In a server that
  // burns the cores the frontend and the batcher need between runs (measured:
  // 2.5x the MLP benchmark's throughput without spinning), so it is off unless
  // the model turns it on.
  for (const char* key : {kIntraOpSpinning, kInterOpSpinning}) {
    if (model.parameters.count(key) == 0) settings->config_entries.emplace_back(key, "0");
  }
  settings->shared_pools = SharedPoolsFit(*settings, cores);
  const bool own_pools =
      !settings->shared_pools &&
      (settings->execution_mode == ORT_PARALLEL || settings->intra_op_threads > 1);
  settings->share_session = share.value_or(!own_pools);
  return "";
}

bool SharedPoolsFit(const SessionSettings& settings, unsigned cores) {
  if (settings.execution_mode != ORT_SEQUENTIAL ||
      settings.intra_op_threads != static_cast<int>(cores)) {
    return false;
  }
  for (const auto& [key, value] : settings.config_entries) {
    if ((key == kIntraOpSpinning || key == kInterOpSpinning) && value != "0") return false;
  }
  return true;
}

}  // namespace inferd::onnxruntime

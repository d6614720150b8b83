// Session settings from the model's parameters (see session_settings.h).
#include "session_settings.h"

#include <algorithm>
#include <charconv>
#include <thread>

namespace inferd::onnxruntime {
namespace {

// The integer value of parameter `key`, if set. Error text in *error.
std::optional<int> IntParameter(const ModelSettings& model, const std::string& key,
                                std::string* error) {
  auto it = model.parameters.find(key);
  if (it == model.parameters.end()) return std::nullopt;
  const std::string& text = it->second;
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    *error = "parameter '" + key + "' is '" + text + "', not an integer";
    return std::nullopt;
  }
  return value;
}

std::optional<bool> BoolParameter(const ModelSettings& model, const std::string& key,
                                  std::string* error) {
  auto it = model.parameters.find(key);
  if (it == model.parameters.end()) return std::nullopt;
  std::string text = it->second;
  std::transform(text.begin(), text.end(), text.begin(), ::tolower);
  if (text == "1" || text == "true" || text == "on") return true;
  if (text == "0" || text == "false" || text == "off") return false;
  *error = "parameter '" + key + "' is '" + it->second + "', not 0/1/true/false";
  return std::nullopt;
}

}  // namespace

unsigned MachineCores() {
  // Asked once: glibc reads /sys/devices/system/cpu/online on every call, and
  // each model's load asks twice.
  static const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return cores;
}

std::string ResolveSessionSettings(const ModelSettings& model, unsigned cores,
                                   SessionSettings* settings) {
  *settings = SessionSettings{};
  std::string error;
  const int fair_share =
      std::max(1, static_cast<int>(cores) / std::max(1, model.instance_count));

  const auto intra = IntParameter(model, "intra_op_thread_count", &error);
  const auto inter = IntParameter(model, "inter_op_thread_count", &error);
  const auto mode = IntParameter(model, "execution_mode", &error);
  settings->mem_arena = BoolParameter(model, "enable_mem_arena", &error);
  settings->mem_pattern = BoolParameter(model, "enable_mem_pattern", &error);
  const auto share = BoolParameter(model, "share_session_between_instances", &error);
  if (!error.empty()) return error;
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

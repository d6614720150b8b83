// Flags -> INFERD_ServerOptions -> INFERD_Server.
#include "server_from_flags.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "common/server_error.h"
#include "inferd/server_memory_budget.h"

namespace inferd {

bool Failed(INFERD_Error* error, const char* what) {
  const Status status = StatusFromServerError(error);
  if (status.ok()) return false;
  std::fprintf(stderr, "error: %s: %s\n", what, status.message().c_str());
  return true;
}

std::string ExecutableDirectory() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "." : exe.parent_path().string();
}

namespace {

// "<name>,<setting>=<value>", the shape of --backend-config, --host-policy
// and --cache-config entries.
struct NamedSetting {
  std::string name;  // may be empty
  std::string setting;
  std::string value;
};

// Splits at the first comma and the first '=' after it; nullopt when either
// is missing.
std::optional<NamedSetting> ParseNamedSetting(const std::string& spec) {
  const size_t comma = spec.find(',');
  const size_t equals = spec.find('=', comma == std::string::npos ? 0 : comma);
  if (comma == std::string::npos || equals == std::string::npos) return std::nullopt;
  return NamedSetting{spec.substr(0, comma), spec.substr(comma + 1, equals - comma - 1),
                      spec.substr(equals + 1)};
}

// Applies one --trace-config entry: "<setting>=<value>" or "<mode>,<setting>=<value>".
bool AddTraceConfig(INFERD_ServerOptions* options, const std::string& spec) {
  const size_t equals = spec.find('=');
  if (equals == std::string::npos) {
    std::fprintf(stderr, "error: --trace-config '%s': expected [<mode>,]<setting>=<value>\n",
                 spec.c_str());
    return false;
  }
  // "<mode>,<setting>" travels whole: the core checks the setting belongs to the mode.
  const std::string setting = spec.substr(0, equals);
  const size_t comma = setting.find(',');
  if (comma != std::string::npos) {
    const std::string mode = setting.substr(0, comma);
    if (mode != "triton" && mode != "opentelemetry") {
      std::fprintf(stderr, "error: --trace-config '%s': unknown trace mode '%s' (triton or "
                   "opentelemetry)\n", spec.c_str(), mode.c_str());
      return false;
    }
  }
  return !Failed(INFERD_ServerOptionsSetTraceSetting(options, setting.c_str(),
                                                     spec.substr(equals + 1).c_str()),
                 "--trace-config");
}

// Applies one --metrics-config "<setting>=<value>".
bool AddMetricsConfig(INFERD_ServerOptions* options, const std::string& spec) {
  const size_t equals = spec.find('=');
  if (equals == std::string::npos) {
    std::fprintf(stderr, "error: --metrics-config '%s': expected <setting>=<value>\n",
                 spec.c_str());
    return false;
  }
  return !Failed(INFERD_ServerOptionsSetMetricsConfig(options, spec.substr(0, equals).c_str(),
                                                      spec.substr(equals + 1).c_str()),
                 "--metrics-config");
}

// The size one --cache-config entry gives the local cache; nullopt (with the
// reason on stderr) when the entry is not "local,size=<bytes>".
std::optional<int64_t> CacheSize(const std::string& spec) {
  const std::optional<NamedSetting> entry = ParseNamedSetting(spec);
  if (!entry) {
    std::fprintf(stderr, "error: --cache-config '%s': expected <cache>,<setting>=<value>\n",
                 spec.c_str());
    return std::nullopt;
  }
  if (entry->name != "local") {
    std::fprintf(stderr,
                 "error: --cache-config '%s': unknown cache '%s': inferd has only the built-in "
                 "'local' cache\n",
                 spec.c_str(), entry->name.c_str());
    return std::nullopt;
  }
  if (entry->setting != "size") {
    std::fprintf(stderr,
                 "error: --cache-config '%s': the local cache has no setting '%s' (only size)\n",
                 spec.c_str(), entry->setting.c_str());
    return std::nullopt;
  }
  const std::string& value = entry->value;
  char* end = nullptr;
  errno = 0;
  const long long parsed = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0 || parsed < 0) {
    std::fprintf(stderr,
                 "error: --cache-config '%s': size must be a whole number of bytes >= 0\n",
                 spec.c_str());
    return std::nullopt;
  }
  return parsed;
}

// The response cache from --cache-config and --response-cache-byte-size.
bool SetResponseCache(INFERD_ServerOptions* options, const Flags& f) {
  if (f.response_cache_byte_size >= 0 && !f.cache_configs.empty()) {
    std::fprintf(stderr, "error: incompatible flags --response-cache-byte-size and "
                         "--cache-config both provided; give one or the other\n");
    return false;
  }
  int64_t size = f.response_cache_byte_size;  // -1: no cache
  for (const std::string& spec : f.cache_configs) {
    const std::optional<int64_t> entry_size = CacheSize(spec);
    if (!entry_size) return false;
    size = *entry_size;
  }
  if (size <= 0) return true;  // no cache (size 0 stores nothing: none is made)
  return !Failed(INFERD_ServerOptionsSetResponseCacheByteSize(options, static_cast<uint64_t>(size)),
                 "--cache-config");
}

// Parses "<backend>,<setting>=<value>".
bool AddBackendConfig(INFERD_ServerOptions* options, const std::string& spec) {
  const std::optional<NamedSetting> entry = ParseNamedSetting(spec);
  if (!entry) {
    std::fprintf(stderr, "error: --backend-config '%s': expected <backend>,<setting>=<value>\n",
                 spec.c_str());
    return false;
  }
  return !Failed(INFERD_ServerOptionsSetBackendConfig(options, entry->name.c_str(),
                                                      entry->setting.c_str(),
                                                      entry->value.c_str()),
                 "--backend-config");
}

// Parses "<name>,<setting>=<value>"; unlike a backend, a policy needs a name.
bool AddHostPolicy(INFERD_ServerOptions* options, const std::string& spec) {
  const std::optional<NamedSetting> entry = ParseNamedSetting(spec);
  if (!entry || entry->name.empty()) {
    std::fprintf(stderr, "error: --host-policy '%s': expected <name>,<setting>=<value>\n",
                 spec.c_str());
    return false;
  }
  return !Failed(INFERD_ServerOptionsSetHostPolicy(options, entry->name.c_str(),
                                                   entry->setting.c_str(), entry->value.c_str()),
                 "--host-policy");
}

// Parses "<name>:<count>[:<device>]".
bool AddRateLimitResource(INFERD_ServerOptions* options, const std::string& spec) {
  const auto number = [](const std::string& text, long long high, long long* out) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
        text.size() > 12) {
      return false;
    }
    *out = std::stoll(text);
    return *out <= high;
  };
  const size_t first = spec.find(':');
  const size_t second = first == std::string::npos ? first : spec.find(':', first + 1);
  long long count = 0;
  long long device = -1;
  const bool ok =
      first != std::string::npos && first > 0 &&
      number(spec.substr(first + 1, second == std::string::npos ? second : second - first - 1),
             UINT32_MAX, &count) &&
      (second == std::string::npos || number(spec.substr(second + 1), INT32_MAX, &device));
  if (!ok) {
    std::fprintf(stderr,
                 "error: --rate-limit-resource '%s': expected <name>:<count>[:<device>] "
                 "(count and device whole numbers, 0 or more)\n",
                 spec.c_str());
    return false;
  }
  return !Failed(INFERD_ServerOptionsAddRateLimiterResource(
                     options, spec.substr(0, first).c_str(), static_cast<uint32_t>(count),
                     static_cast<int32_t>(device)),
                 "--rate-limit-resource");
}

// The settings the server API cannot reject (the flags' parser checked them).
void SetModelOptions(INFERD_ServerOptions* options, const Flags& f) {
  for (const std::string& repo : f.model_repositories) {
    INFERD_ErrorDelete(INFERD_ServerOptionsAddModelRepositoryPath(options, repo.c_str()));
  }
  INFERD_ErrorDelete(INFERD_ServerOptionsSetModelRepositoryCache(
      options, f.model_repository_cache_directory.c_str(), f.model_repository_cache_byte_size));
  const std::string backends =
      f.backend_directory.empty() ? ExecutableDirectory() + "/backends" : f.backend_directory;
  INFERD_ErrorDelete(INFERD_ServerOptionsSetBackendDirectory(options, backends.c_str()));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetExitTimeout(options, f.exit_timeout_secs));
  INFERD_ErrorDelete(
      INFERD_ServerOptionsSetMaxInflightRequestsPerModel(options, f.model_max_inflight_requests));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetAdmission(
      options, f.admission_control, f.admission_queue_target_ms, f.max_inflight_requests,
      f.max_queued_requests));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetStrictModelConfig(
      options, f.disable_auto_complete_config || f.strict_model_config));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetStrictReadiness(options, f.strict_readiness));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetExitOnError(options, f.exit_on_error));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetModelLoadRetryCount(
      options, static_cast<uint32_t>(f.model_load_retry_count)));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetModelControlMode(
      options, f.model_control_mode == "explicit" ? INFERD_MODEL_CONTROL_EXPLICIT
               : f.model_control_mode == "poll"   ? INFERD_MODEL_CONTROL_POLL
                                                  : INFERD_MODEL_CONTROL_NONE));
  for (const std::string& model : f.load_models) {
    INFERD_ErrorDelete(INFERD_ServerOptionsAddStartupModel(options, model.c_str()));
  }
  INFERD_ErrorDelete(INFERD_ServerOptionsSetRepositoryPollSecs(options, f.repository_poll_secs));
  INFERD_ErrorDelete(
      INFERD_ServerOptionsSetModelLoadThreadCount(options, f.model_load_thread_count));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetModelNamespacing(options, f.model_namespacing));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetBufferManagerThreadCount(
      options, static_cast<uint32_t>(f.buffer_manager_thread_count)));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetTransitionPolicy(
      options, f.model_transition_policy == "resource" ? INFERD_TRANSITION_RESOURCE_PRESERVING
                                                       : INFERD_TRANSITION_AVAILABILITY_PRESERVING));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetRateLimiterMode(
      options, f.rate_limit == "execution_count" ? INFERD_RATE_LIMIT_EXEC_COUNT
                                                 : INFERD_RATE_LIMIT_OFF));
}

// The log and metrics settings the server API cannot reject.
void SetLogAndMetricsOptions(INFERD_ServerOptions* options, const Flags& f) {
  INFERD_ErrorDelete(INFERD_ServerOptionsSetLogVerbose(options, f.log_verbose));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetLogInfo(options, f.log_info));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetLogWarn(options, f.log_warning));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetLogError(options, f.log_error));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetLogFile(options, f.log_file.c_str()));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetLogFormat(
      options, f.log_format == "ISO8601" ? INFERD_LOG_FORMAT_ISO8601 : INFERD_LOG_FORMAT_DEFAULT));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetServerId(options, f.id.c_str()));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetMetrics(options, f.allow_metrics));
  INFERD_ErrorDelete(INFERD_ServerOptionsSetCpuMetrics(options, f.allow_cpu_metrics));
}

// --model-memory-budget and its companions; false (said on stderr) when bad.
bool SetMemoryBudget(INFERD_ServerOptions* options, const Flags& f) {
  for (const std::string& model : f.model_memory_pins) {
    if (Failed(INFERD_ServerOptionsAddPinnedModel(options, model.c_str()), "--model-memory-pin")) {
      return false;
    }
  }
  if (Failed(INFERD_ServerOptionsSetModelLoadWaitTimeout(options, f.model_load_wait_timeout_ms),
             "--model-load-wait-timeout-ms")) {
    return false;
  }
  return f.model_memory_budget.empty() ||
         !Failed(INFERD_ServerOptionsSetModelMemoryBudget(options, f.model_memory_budget.c_str()),
                 "--model-memory-budget");
}

// The settings that can be wrong: false at the first bad one (with the reason
// on stderr, naming its flag), the rest left unread.
bool SetCheckedOptions(INFERD_ServerOptions* options, const Flags& f) {
  bool ok = !Failed(INFERD_ServerOptionsSetModelConfigName(options, f.model_config_name.c_str()),
                    "--model-config-name");
  ok = ok && !Failed(INFERD_ServerOptionsSetMetricsInterval(options, f.metrics_interval_ms),
                    "--metrics-interval-ms");
  for (const std::string& spec : f.metrics_configs) ok = ok && AddMetricsConfig(options, spec);
  for (const std::string& spec : f.backend_configs) ok = ok && AddBackendConfig(options, spec);
  ok = ok && SetResponseCache(options, f);
  for (const std::string& spec : f.host_policies) ok = ok && AddHostPolicy(options, spec);
  for (const std::string& spec : f.rate_limit_resources) {
    ok = ok && AddRateLimitResource(options, spec);
  }
  for (const auto& [setting, value] : f.trace_flags) {
    ok = ok && !Failed(INFERD_ServerOptionsSetTraceSetting(options, setting.c_str(), value.c_str()),
                       ("--trace-" + setting).c_str());
  }
  for (const std::string& spec : f.trace_configs) ok = ok && AddTraceConfig(options, spec);
  return ok && SetMemoryBudget(options, f);
}

}  // namespace

INFERD_Server* CreateServer(const Flags& f) {
  INFERD_ServerOptions* options = nullptr;
  if (Failed(INFERD_ServerOptionsNew(&options), "server options")) return nullptr;
  SetModelOptions(options, f);
  SetLogAndMetricsOptions(options, f);
  INFERD_Server* server = nullptr;
  if (SetCheckedOptions(options, f)) {
    Failed(INFERD_ServerNew(&server, options), "creating the server");
  }
  INFERD_ServerOptionsDelete(options);
  return server;
}

}  // namespace inferd

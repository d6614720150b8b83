// C ABI: the server options (server.h), what INFERD_ServerNew is given. Each
// setter checks its handle and arguments and fills inferd::ServerOptions; the
// server itself: server_api.cc.
#include <algorithm>
#include <string>

#include "core/api/error.h"
#include "core/api/server_options_handle.h"

using inferd::GuardedCall;
using inferd::Status;

namespace {

// Applies `set` to the options after checking the handle.
template <typename Set>
INFERD_Error* WithOptions(INFERD_ServerOptions* options, Set&& set) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(options);
    set(options->options);
    return Status::Ok();
  });
}

}  // namespace

extern "C" {

INFERD_Error* INFERD_ServerOptionsNew(INFERD_ServerOptions** options) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(options);
    *options = new INFERD_ServerOptions();
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerOptionsDelete(INFERD_ServerOptions* options) {
  delete options;
  return nullptr;
}

INFERD_Error* INFERD_ServerOptionsAddModelRepositoryPath(INFERD_ServerOptions* options,
                                                        const char* path) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(options);
    INFERD_REQUIRE_ARG(path);
    options->options.repository_paths.emplace_back(path);
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerOptionsSetModelRepositoryCache(INFERD_ServerOptions* options,
                                                         const char* directory,
                                                         uint64_t byte_size) {
  return WithOptions(options, [&](inferd::ServerOptions& o) {
    o.model_cache_directory = directory != nullptr ? directory : "";
    o.model_cache_bytes = byte_size;
  });
}

INFERD_Error* INFERD_ServerOptionsSetBackendDirectory(INFERD_ServerOptions* options,
                                                     const char* path) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(options);
    INFERD_REQUIRE_ARG(path);
    options->options.backend_directory = path;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerOptionsSetBackendConfig(INFERD_ServerOptions* options,
                                                 const char* backend_name, const char* setting,
                                                 const char* value) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(options);
    INFERD_REQUIRE_ARG(backend_name);
    INFERD_REQUIRE_ARG(setting);
    INFERD_REQUIRE_ARG(value);
    options->options.backend_settings[backend_name][setting] = value;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerOptionsSetHostPolicy(INFERD_ServerOptions* options,
                                              const char* policy_name, const char* setting,
                                              const char* value) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(options);
    INFERD_REQUIRE_ARG(policy_name);
    INFERD_REQUIRE_ARG(setting);
    INFERD_REQUIRE_ARG(value);
    inferd::HostPolicy& policy = options->options.host_policies[policy_name];
    return inferd::SetHostPolicy(&policy, setting, value)
        .WithPrefix("host policy '" + std::string(policy_name) + "': ");
  });
}

INFERD_Error* INFERD_ServerOptionsSetRateLimiterMode(INFERD_ServerOptions* options,
                                                   INFERD_RateLimitMode mode) {
  return WithOptions(options, [&](inferd::ServerOptions& o) {
    o.rate_limit = mode == INFERD_RATE_LIMIT_EXEC_COUNT;
  });
}

INFERD_Error* INFERD_ServerOptionsAddRateLimiterResource(INFERD_ServerOptions* options,
                                                       const char* name, uint32_t count,
                                                       int32_t device) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(options);
    INFERD_REQUIRE_ARG(name);
    if (*name == '\0') return Status::InvalidArg("a rate limiter resource needs a name");
    if (device < inferd::ResourceOverride::kEveryDevice) {
      return Status::InvalidArg("rate limiter resource '" + std::string(name) + "': device " +
                                std::to_string(device) + " is not a device id (or -1 for all)");
    }
    options->options.rate_limit_resources.push_back({name, count, device});
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerOptionsSetTraceSetting(INFERD_ServerOptions* options,
                                                 const char* setting, const char* value) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(options);
    INFERD_REQUIRE_ARG(setting);
    INFERD_REQUIRE_ARG(value);
    return inferd::ApplyStartupTraceSetting(&options->options.trace, setting, value);
  });
}

INFERD_Error* INFERD_ServerOptionsSetMaxInflightRequestsPerModel(INFERD_ServerOptions* options,
                                                               uint64_t max_inflight) {
  return WithOptions(options, [&](inferd::ServerOptions& o) {
    o.max_inflight_requests_per_model = max_inflight;
  });
}

INFERD_Error* INFERD_ServerOptionsSetExitTimeout(INFERD_ServerOptions* options, uint32_t seconds) {
  return WithOptions(options, [&](inferd::ServerOptions& o) { o.exit_timeout_secs = seconds; });
}

INFERD_Error* INFERD_ServerOptionsSetStrictModelConfig(INFERD_ServerOptions* options,
                                                      bool strict) {
  return WithOptions(options, [&](inferd::ServerOptions& o) { o.strict_model_config = strict; });
}

INFERD_Error* INFERD_ServerOptionsSetExitOnError(INFERD_ServerOptions* options, bool exit) {
  return WithOptions(options, [&](inferd::ServerOptions& o) { o.exit_on_error = exit; });
}

INFERD_Error* INFERD_ServerOptionsSetModelConfigName(INFERD_ServerOptions* options,
                                                    const char* name) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(options);
    const std::string value = name == nullptr ? "" : name;
    if (value.find('/') != std::string::npos || value == "." || value == "..") {
      return Status::InvalidArg("--model-config-name '" + value +
                                "': expected a file name without '/' (the server reads "
                                "<model folder>/configs/<name>.pbtxt)");
    }
    options->options.model_config_name = value;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerOptionsSetModelLoadRetryCount(INFERD_ServerOptions* options,
                                                        uint32_t count) {
  return WithOptions(options, [&](inferd::ServerOptions& o) { o.model_load_retries = count; });
}

INFERD_Error* INFERD_ServerOptionsSetBufferManagerThreadCount(INFERD_ServerOptions* options,
                                                             uint32_t count) {
  return WithOptions(options, [&](inferd::ServerOptions& o) { o.buffer_manager_threads = count; });
}

INFERD_Error* INFERD_ServerOptionsSetResponseCacheByteSize(INFERD_ServerOptions* options,
                                                         uint64_t byte_size) {
  return WithOptions(options, [&](inferd::ServerOptions& o) {
    o.response_cache = true;
    o.response_cache_bytes = byte_size;
  });
}

INFERD_Error* INFERD_ServerOptionsSetModelControlMode(INFERD_ServerOptions* options,
                                                    INFERD_ModelControlMode mode) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(options);
    switch (mode) {
      case INFERD_MODEL_CONTROL_NONE: options->options.control_mode = inferd::ModelControlMode::kNone; break;
      case INFERD_MODEL_CONTROL_EXPLICIT: options->options.control_mode = inferd::ModelControlMode::kExplicit; break;
      case INFERD_MODEL_CONTROL_POLL: options->options.control_mode = inferd::ModelControlMode::kPoll; break;
      default: return Status::InvalidArg("unknown model control mode " + std::to_string(mode));
    }
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerOptionsAddStartupModel(INFERD_ServerOptions* options,
                                                const char* model_name) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(options);
    INFERD_REQUIRE_ARG(model_name);
    options->options.startup_models.emplace_back(model_name);
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerOptionsSetRepositoryPollSecs(INFERD_ServerOptions* options,
                                                      uint32_t seconds) {
  return WithOptions(options, [&](inferd::ServerOptions& o) { o.repository_poll_secs = seconds; });
}

INFERD_Error* INFERD_ServerOptionsSetModelNamespacing(INFERD_ServerOptions* options,
                                                    bool enable) {
  return WithOptions(options, [&](inferd::ServerOptions& o) { o.model_namespacing = enable; });
}

INFERD_Error* INFERD_ServerOptionsSetModelLoadThreadCount(INFERD_ServerOptions* options,
                                                        uint32_t count) {
  return WithOptions(options, [&](inferd::ServerOptions& o) {
    o.model_load_threads = static_cast<int>(std::max<uint32_t>(1, count));
  });
}

INFERD_Error* INFERD_ServerOptionsSetTransitionPolicy(INFERD_ServerOptions* options,
                                                    INFERD_TransitionPolicy policy) {
  return WithOptions(options, [&](inferd::ServerOptions& o) {
    o.transition_policy = policy == INFERD_TRANSITION_RESOURCE_PRESERVING
                              ? inferd::TransitionPolicy::kResourcePreserving
                              : inferd::TransitionPolicy::kAvailabilityPreserving;
  });
}

INFERD_Error* INFERD_ServerOptionsSetStrictReadiness(INFERD_ServerOptions* options, bool strict) {
  return WithOptions(options, [&](inferd::ServerOptions& o) { o.strict_readiness = strict; });
}

INFERD_Error* INFERD_ServerOptionsSetLogVerbose(INFERD_ServerOptions* options, int level) {
  return WithOptions(options, [&](inferd::ServerOptions& o) {
    o.log.verbose = static_cast<uint32_t>(std::max(0, level));
  });
}

INFERD_Error* INFERD_ServerOptionsSetLogInfo(INFERD_ServerOptions* options, bool on) {
  return WithOptions(options, [&](inferd::ServerOptions& o) { o.log.info = on; });
}

INFERD_Error* INFERD_ServerOptionsSetLogWarn(INFERD_ServerOptions* options, bool on) {
  return WithOptions(options, [&](inferd::ServerOptions& o) { o.log.warning = on; });
}

INFERD_Error* INFERD_ServerOptionsSetLogError(INFERD_ServerOptions* options, bool on) {
  return WithOptions(options, [&](inferd::ServerOptions& o) { o.log.error = on; });
}

INFERD_Error* INFERD_ServerOptionsSetLogFormat(INFERD_ServerOptions* options,
                                              INFERD_LogFormat format) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(options);
    switch (format) {
      case INFERD_LOG_FORMAT_DEFAULT: options->options.log.format = inferd::LogFormat::kDefault; break;
      case INFERD_LOG_FORMAT_ISO8601: options->options.log.format = inferd::LogFormat::kIso8601; break;
      default: return Status::InvalidArg("unknown log format " + std::to_string(format));
    }
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerOptionsSetLogFile(INFERD_ServerOptions* options, const char* path) {
  return WithOptions(options, [&](inferd::ServerOptions& o) { o.log.file = path ? path : ""; });
}

INFERD_Error* INFERD_ServerOptionsSetServerId(INFERD_ServerOptions* options,
                                             const char* server_id) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(options);
    INFERD_REQUIRE_ARG(server_id);
    options->options.server_id = server_id;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerOptionsSetMetrics(INFERD_ServerOptions* options, bool on) {
  return WithOptions(options, [&](inferd::ServerOptions& o) { o.metrics.enabled = on; });
}

INFERD_Error* INFERD_ServerOptionsSetCpuMetrics(INFERD_ServerOptions* options, bool on) {
  return WithOptions(options, [&](inferd::ServerOptions& o) { o.metrics.cpu = on; });
}

INFERD_Error* INFERD_ServerOptionsSetMetricsInterval(INFERD_ServerOptions* options,
                                                    uint64_t interval_ms) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(options);
    if (interval_ms == 0) {
      return Status::InvalidArg("metrics interval: must be at least 1 ms, got 0");
    }
    options->options.metrics.interval_ms = interval_ms;
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerOptionsSetMetricsConfig(INFERD_ServerOptions* options,
                                                  const char* setting, const char* value) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(options);
    INFERD_REQUIRE_ARG(setting);
    INFERD_REQUIRE_ARG(value);
    return inferd::ApplyMetricsSetting(&options->options.metrics, setting, value);
  });
}

}  // extern "C"

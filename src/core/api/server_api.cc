// C ABI: server options and the server (server.h).
#include "core/api/error.h"
#include "core/api/server_options_handle.h"
#include "core/server/inference_server.h"

using inferd::GuardedCall;
using inferd::InferenceServer;
using inferd::Status;

namespace {

INFERD_Message* NewMessage(std::string json) { return new INFERD_Message{std::move(json)}; }

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

INFERD_Error* INFERD_ServerNew(INFERD_Server** server, INFERD_ServerOptions* options) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(server);
    INFERD_REQUIRE_ARG(options);
    RETURN_IF_ERROR(inferd::ConfigureLogging(options->options.log));
    ASSIGN_OR_RETURN(std::unique_ptr<InferenceServer> created,
                     InferenceServer::Create(options->options));
    *server = created.release()->handle();
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerDelete(INFERD_Server* server) {
  return GuardedCall([&] {
    delete InferenceServer::FromHandle(server);
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerStop(INFERD_Server* server) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(server);
    return InferenceServer::FromHandle(server)->Stop();
  });
}

INFERD_Error* INFERD_ServerBeginExit(INFERD_Server* server) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(server);
    InferenceServer::FromHandle(server)->BeginExit();
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerIsLive(INFERD_Server* server, bool* live) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(server);
    INFERD_REQUIRE_ARG(live);
    *live = InferenceServer::FromHandle(server)->IsLive();
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerIsReady(INFERD_Server* server, bool* ready) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(server);
    INFERD_REQUIRE_ARG(ready);
    const InferenceServer* inference_server = InferenceServer::FromHandle(server);
    *ready = inference_server->IsReady();
    return inference_server->ExitingError();
  });
}

INFERD_Error* INFERD_ServerMetadata(INFERD_Server* server, INFERD_Message** metadata) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(server);
    INFERD_REQUIRE_ARG(metadata);
    *metadata = NewMessage(InferenceServer::FromHandle(server)->MetadataJson());
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerModelIsReady(INFERD_Server* server, const char* model_name,
                                       int64_t model_version, bool* ready) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(server);
    INFERD_REQUIRE_ARG(model_name);
    INFERD_REQUIRE_ARG(ready);
    InferenceServer* inference_server = InferenceServer::FromHandle(server);
    auto model = inference_server->lifecycle().Get(model_name, model_version);
    *ready = model.ok() && !inference_server->Exiting();
    // A model that exists but is not ready is an answer, not an error.
    if (!model.ok() && model.status().code() != Status::Code::kUnavailable) return model.status();
    return inference_server->ExitingError();
  });
}

INFERD_Error* INFERD_ServerModelMetadata(INFERD_Server* server, const char* model_name,
                                        int64_t model_version, INFERD_Message** metadata) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(server);
    INFERD_REQUIRE_ARG(model_name);
    INFERD_REQUIRE_ARG(metadata);
    ASSIGN_OR_RETURN(std::string json, InferenceServer::FromHandle(server)->ModelMetadataJson(
                                           model_name, model_version));
    *metadata = NewMessage(std::move(json));
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerModelConfig(INFERD_Server* server, const char* model_name,
                                      int64_t model_version, INFERD_Message** config) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(server);
    INFERD_REQUIRE_ARG(model_name);
    INFERD_REQUIRE_ARG(config);
    ASSIGN_OR_RETURN(std::string json, InferenceServer::FromHandle(server)->ModelConfigJson(
                                           model_name, model_version));
    *config = NewMessage(std::move(json));
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerModelIndex(INFERD_Server* server, uint32_t flags,
                                     INFERD_Message** index) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(server);
    INFERD_REQUIRE_ARG(index);
    *index = NewMessage(InferenceServer::FromHandle(server)->IndexJson(
        (flags & INFERD_INDEX_FLAG_READY) != 0));
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerModelStatistics(INFERD_Server* server, const char* model_name,
                                          int64_t model_version, INFERD_Message** statistics) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(server);
    INFERD_REQUIRE_ARG(statistics);
    ASSIGN_OR_RETURN(std::string json,
                     InferenceServer::FromHandle(server)->StatisticsJson(
                         model_name ? model_name : "", model_version));
    *statistics = NewMessage(std::move(json));
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerMetrics(INFERD_Server* server, INFERD_Message** metrics) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(server);
    INFERD_REQUIRE_ARG(metrics);
    *metrics = NewMessage(InferenceServer::FromHandle(server)->MetricsText());
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerTraceSettings(INFERD_Server* server, const char* model_name,
                                        INFERD_Message** settings) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(server);
    INFERD_REQUIRE_ARG(settings);
    ASSIGN_OR_RETURN(std::string json, InferenceServer::FromHandle(server)->TraceSettingsJson(
                                           model_name ? model_name : ""));
    *settings = NewMessage(std::move(json));
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerUpdateTraceSettings(INFERD_Server* server, const char* model_name,
                                              const char* settings_json,
                                              INFERD_Message** settings) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(server);
    INFERD_REQUIRE_ARG(settings_json);
    ASSIGN_OR_RETURN(std::string json,
                     InferenceServer::FromHandle(server)->UpdateTraceSettings(
                         model_name ? model_name : "", settings_json));
    if (settings != nullptr) *settings = NewMessage(std::move(json));
    return Status::Ok();
  });
}

INFERD_Error* INFERD_ServerLoadModel(INFERD_Server* server, const char* model_name,
                                    const char* config_json, const char* const* file_paths,
                                    const void* const* file_contents, const size_t* file_sizes,
                                    uint32_t file_count) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(server);
    INFERD_REQUIRE_ARG(model_name);
    inferd::LoadOverrides overrides;
    if (config_json != nullptr) overrides.config_json = config_json;
    if (file_count > 0) {
      INFERD_REQUIRE_ARG(file_paths);
      INFERD_REQUIRE_ARG(file_contents);
      INFERD_REQUIRE_ARG(file_sizes);
    }
    for (uint32_t i = 0; i < file_count; ++i) {
      overrides.files[file_paths[i]].assign(static_cast<const char*>(file_contents[i]),
                                            file_sizes[i]);
    }
    return InferenceServer::FromHandle(server)->LoadModel(model_name, overrides);
  });
}

INFERD_Error* INFERD_ServerUnloadModel(INFERD_Server* server, const char* model_name,
                                      bool unload_dependents) {
  return GuardedCall([&] {
    INFERD_REQUIRE_ARG(server);
    INFERD_REQUIRE_ARG(model_name);
    return InferenceServer::FromHandle(server)->UnloadModel(model_name, unload_dependents);
  });
}

}  // extern "C"

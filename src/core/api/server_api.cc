// C ABI: the server (server.h): create and stop it, its health, metadata,
// statistics, metrics and trace settings, and loading and unloading models.
// Its options: server_options_api.cc.
#include <memory>
#include <string>
#include <utility>

#include "core/api/error.h"
#include "core/api/server_options_handle.h"
#include "core/server/inference_server.h"

using inferd::GuardedCall;
using inferd::InferenceServer;
using inferd::Status;

namespace {

INFERD_Message* NewMessage(std::string json) { return new INFERD_Message{std::move(json)}; }

}  // namespace

extern "C" {

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

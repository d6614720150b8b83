// Health, metadata, readiness, configuration, statistics and index RPCs.
#include "grpc/metadata_handlers.h"

#include <google/protobuf/util/json_util.h>

#include <string>

#include "common/server_error.h"
#include "grpc/version_string.h"

namespace inferd::grpc_frontend {
namespace {

// How strictly a server document is read: the configuration is rendered from
// the same schema, so an unknown field there is a bug worth reporting; the
// metadata documents may grow fields the protocol message lacks.
enum class Fields { kStrict, kIgnoreUnknown };

// Parses the JSON of a message the server returned into `out` and frees the
// message; `error` is the call that produced it. `wrap_key`, when set, nests
// the document under that key first (the index is a bare JSON array).
Status FromMessage(INFERD_Error* error, INFERD_Message* message,
                   google::protobuf::Message* out, const char* what, Fields fields,
                   const char* wrap_key = nullptr) {
  if (error != nullptr) return StatusFromServerError(error);
  const char* base = nullptr;
  size_t size = 0;
  Status status = StatusFromServerError(INFERD_MessageSerializeToJson(message, &base, &size));
  if (status.ok()) {
    std::string json(base, size);
    if (wrap_key != nullptr) json = std::string("{\"") + wrap_key + "\":" + json + "}";
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = fields == Fields::kIgnoreUnknown;
    const auto parsed = google::protobuf::util::JsonStringToMessage(json, out, options);
    if (!parsed.ok()) {
      status = Status::Internal(std::string("could not convert the ") +
                                                            what + " to its gRPC message: " +
                                                            std::string(parsed.message()));
    }
  }
  DiscardServerError(INFERD_MessageDelete(message));
  return status;
}

}  // namespace

Status ServerLive(INFERD_Server* server, inference::ServerLiveResponse* response) {
  bool live = false;
  if (Status s = StatusFromServerError(INFERD_ServerIsLive(server, &live)); !s.ok()) {
    return s;
  }
  response->set_live(live);
  return Status::Ok();
}

Status ServerReady(INFERD_Server* server, inference::ServerReadyResponse* response) {
  bool ready = false;
  if (Status s = StatusFromServerError(INFERD_ServerIsReady(server, &ready)); !s.ok()) {
    return s;
  }
  response->set_ready(ready);
  return Status::Ok();
}

Status ModelReady(INFERD_Server* server, const inference::ModelReadyRequest& request,
                  inference::ModelReadyResponse* response) {
  int64_t version = -1;
  if (Status s = ParseModelVersion(request.name(), request.version(), &version); !s.ok()) {
    return s;
  }
  bool ready = false;
  const Status status = StatusFromServerError(
      INFERD_ServerModelIsReady(server, request.name().c_str(), version, &ready));
  if (status.code() == Status::Code::kNotFound) {
    ready = false;
  } else if (!status.ok()) {
    return status;
  }
  response->set_ready(ready);
  return Status::Ok();
}

Status ServerMetadata(INFERD_Server* server, inference::ServerMetadataResponse* response) {
  INFERD_Message* message = nullptr;
  INFERD_Error* error = INFERD_ServerMetadata(server, &message);
  return FromMessage(error, message, response, "server metadata", Fields::kIgnoreUnknown);
}

Status ModelMetadata(INFERD_Server* server, const inference::ModelMetadataRequest& request,
                     inference::ModelMetadataResponse* response) {
  int64_t version = -1;
  if (Status s = ParseModelVersion(request.name(), request.version(), &version); !s.ok()) {
    return s;
  }
  INFERD_Message* message = nullptr;
  INFERD_Error* error =
      INFERD_ServerModelMetadata(server, request.name().c_str(), version, &message);
  return FromMessage(error, message, response, "model metadata", Fields::kIgnoreUnknown);
}

Status ModelConfig(INFERD_Server* server, const inference::ModelConfigRequest& request,
                   inference::ModelConfigResponse* response) {
  int64_t version = -1;
  if (Status s = ParseModelVersion(request.name(), request.version(), &version); !s.ok()) {
    return s;
  }
  INFERD_Message* message = nullptr;
  INFERD_Error* error = INFERD_ServerModelConfig(server, request.name().c_str(), version, &message);
  return FromMessage(error, message, response->mutable_config(), "model configuration",
                     Fields::kStrict);
}

Status ModelStatistics(INFERD_Server* server,
                       const inference::ModelStatisticsRequest& request,
                       inference::ModelStatisticsResponse* response) {
  int64_t version = -1;
  if (Status s = ParseModelVersion(request.name(), request.version(), &version); !s.ok()) {
    return s;
  }
  INFERD_Message* message = nullptr;
  INFERD_Error* error =
      INFERD_ServerModelStatistics(server, request.name().c_str(), version, &message);
  return FromMessage(error, message, response, "model statistics", Fields::kIgnoreUnknown);
}

Status RepositoryIndex(INFERD_Server* server,
                       const inference::RepositoryIndexRequest& request,
                       inference::RepositoryIndexResponse* response) {
  INFERD_Message* message = nullptr;
  INFERD_Error* error =
      INFERD_ServerModelIndex(server, request.ready() ? INFERD_INDEX_FLAG_READY : 0, &message);
  return FromMessage(error, message, response, "repository index", Fields::kIgnoreUnknown,
                     "models");
}

}  // namespace inferd::grpc_frontend

// The gRPC RPCs answered straight from the server's state: health, server
// and model metadata, model readiness, model configuration and statistics,
// and the repository index. Each fills its response message from the server API (the JSON
// documents it returns are parsed into the protocol's messages) and returns
// the call's status. Quick and non-blocking, so they run on gRPC's callback
// threads. Thread-safe (no shared state).
#ifndef INFERD_FRONTENDS_GRPC_METADATA_HANDLERS_H_
#define INFERD_FRONTENDS_GRPC_METADATA_HANDLERS_H_

#include "grpc_service.pb.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::grpc_frontend {

Status ServerLive(INFERD_Server* server, inference::ServerLiveResponse* response);
Status ServerReady(INFERD_Server* server, inference::ServerReadyResponse* response);

// As Triton: an unknown model or version is not ready, not an error.
Status ModelReady(INFERD_Server* server, const inference::ModelReadyRequest& request,
                  inference::ModelReadyResponse* response);

Status ServerMetadata(INFERD_Server* server, inference::ServerMetadataResponse* response);
Status ModelMetadata(INFERD_Server* server, const inference::ModelMetadataRequest& request,
                     inference::ModelMetadataResponse* response);

// The complete configuration as the ModelConfig message (field numbers as
// Triton's, so Triton clients decode it).
Status ModelConfig(INFERD_Server* server, const inference::ModelConfigRequest& request,
                   inference::ModelConfigResponse* response);

// Statistics of `name` (every model when empty) at `version` (every ready
// version when empty), as the statistics extension defines them.
Status ModelStatistics(INFERD_Server* server,
                       const inference::ModelStatisticsRequest& request,
                       inference::ModelStatisticsResponse* response);

// Every model and version with its state and reason; `ready` lists only
// ready ones. Repositories are not told apart: repository_name is ignored.
Status RepositoryIndex(INFERD_Server* server,
                       const inference::RepositoryIndexRequest& request,
                       inference::RepositoryIndexResponse* response);

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_METADATA_HANDLERS_H_

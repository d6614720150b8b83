// The model repository RPCs that change what is loaded: RepositoryModelLoad
// (with Triton's "config" parameter, a model configuration as JSON, and
// "file:<path>" parameters carrying a model folder's files as bytes) and
// RepositoryModelUnload ("unload_dependents"). The server calls block until
// the load or unload is done: run these on the BlockingWorker. In the NONE
// and POLL control modes the server answers UNAVAILABLE. Thread-safe (no
// shared state).
#ifndef INFERD_FRONTENDS_GRPC_REPOSITORY_HANDLERS_H_
#define INFERD_FRONTENDS_GRPC_REPOSITORY_HANDLERS_H_

#include "grpc_service.pb.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::grpc_frontend {

Status LoadModel(INFERD_Server* server,
                 const inference::RepositoryModelLoadRequest& request);
Status UnloadModel(INFERD_Server* server,
                   const inference::RepositoryModelUnloadRequest& request);

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_REPOSITORY_HANDLERS_H_

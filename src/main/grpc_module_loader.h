// Loads libinferd_grpc_frontend.so (see frontends/grpc/grpc_module.h) and
// creates the gRPC frontend from it. Used by main only.
#ifndef INFERD_GRPC_MODULE_LOADER_H_
#define INFERD_GRPC_MODULE_LOADER_H_

#include <memory>
#include <string>

#include "common/connection_frontend.h"
#include "grpc/grpc_server.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd {

// Loads the module from `folder` (it stays loaded for the process's life) and
// creates its frontend for `server` and `options`, not started yet.
// UNAVAILABLE when the module is missing, cannot be loaded or lacks its
// entry point. Any thread.
StatusOr<std::unique_ptr<ConnectionFrontend>> LoadGrpcFrontend(
    const std::string& folder, INFERD_Server* server, const grpc_frontend::GrpcOptions& options);

}  // namespace inferd

#endif  // INFERD_GRPC_MODULE_LOADER_H_

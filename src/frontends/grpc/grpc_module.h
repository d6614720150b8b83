// The gRPC frontend as a loadable module (libinferd_grpc_frontend.so beside
// the inferd binary). gRPC, abseil and OpenSSL are ~40 shared libraries that
// take longer to load than the rest of inferd takes to become ready, so the
// binary loads them only when it serves gRPC, and only once HTTP is already
// serving; with --allow-grpc=false they are never loaded at all.
//
// The boundary is internal (module and binary come from one build), so C++
// types cross it; the entry point has C linkage only to be found by dlsym.
// What it returns is a Frontend, started and stopped as the binary's others,
// that also serves connections the binary accepted (ConnectionFrontend).
#ifndef INFERD_FRONTENDS_GRPC_GRPC_MODULE_H_
#define INFERD_FRONTENDS_GRPC_GRPC_MODULE_H_

#include "common/connection_frontend.h"
#include "grpc/grpc_server.h"
#include "inferd/server.h"

namespace inferd::grpc_frontend {

// The module's file name, looked up in the binary's folder.
inline constexpr const char* kGrpcModuleFile = "libinferd_grpc_frontend.so";

// Creates a GrpcServer for `server` with `options`, not started yet. The
// caller owns it and deletes it through Frontend (which stops it); the module
// must stay loaded until then.
using NewGrpcFrontendFn = ConnectionFrontend* (*)(INFERD_Server* server,
                                                 const GrpcOptions& options);

inline constexpr const char* kNewGrpcFrontendSymbol = "InferdGrpcFrontendNew";

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_GRPC_MODULE_H_

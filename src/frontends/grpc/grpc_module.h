// The gRPC frontend as a loadable module (libinferd_grpc_frontend.so beside
// the inferd binary). gRPC, abseil and OpenSSL are ~40 shared libraries that
// take longer to load than the rest of inferd takes to become ready, so the
// binary loads them only when it serves gRPC, and only once HTTP is already
// serving; with --allow-grpc=false they are never loaded at all.
//
// The boundary is internal (module and binary come from one build), so C++
// types cross it; the entry points have C linkage only to be found by dlsym.
#ifndef INFERD_FRONTENDS_GRPC_GRPC_MODULE_H_
#define INFERD_FRONTENDS_GRPC_GRPC_MODULE_H_

#include <cstdint>
#include <string>

#include "grpc/grpc_server.h"
#include "inferd/server.h"

namespace inferd::grpc_frontend {

// The module's file name, looked up in the binary's folder.
inline constexpr const char* kGrpcModuleFile = "libinferd_grpc_frontend.so";

// Creates and starts a GrpcServer; on success returns it and sets *port, on
// failure returns null and sets *error.
using StartGrpcFn = GrpcServer* (*)(INFERD_Server* server, const GrpcOptions& options,
                                    uint16_t* port, std::string* error);
// Stops (see GrpcServer::Stop) and deletes a server StartGrpcFn returned.
using StopGrpcFn = void (*)(GrpcServer* server);

inline constexpr const char* kStartGrpcSymbol = "InferdGrpcFrontendStart";
inline constexpr const char* kStopGrpcSymbol = "InferdGrpcFrontendStop";

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_GRPC_MODULE_H_

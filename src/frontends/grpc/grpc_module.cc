// The entry point of libinferd_grpc_frontend.so.
#include "grpc/grpc_module.h"

namespace inferd::grpc_frontend {
namespace {

ConnectionFrontend* New(INFERD_Server* server, const GrpcOptions& options) {
  return new GrpcServer(server, options);
}

// The signature the binary casts the looked-up symbol to.
[[maybe_unused]] constexpr NewGrpcFrontendFn kNewChecked = New;

}  // namespace
}  // namespace inferd::grpc_frontend

extern "C" __attribute__((visibility("default"))) inferd::ConnectionFrontend* InferdGrpcFrontendNew(
    INFERD_Server* server, const inferd::grpc_frontend::GrpcOptions& options) {
  return inferd::grpc_frontend::New(server, options);
}

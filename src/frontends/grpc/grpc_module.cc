// The entry points of libinferd_grpc_frontend.so.
#include "grpc/grpc_module.h"

namespace inferd::grpc_frontend {
namespace {

GrpcServer* Start(INFERD_Server* server, const GrpcOptions& options, uint16_t* port,
                  std::string* error) {
  auto frontend = std::make_unique<GrpcServer>(server, options);
  *error = frontend->Start();
  if (!error->empty()) return nullptr;
  *port = frontend->port();
  return frontend.release();
}

void Stop(GrpcServer* server) {
  server->Stop();
  delete server;
}

// The signatures the binary casts the looked-up symbols to.
[[maybe_unused]] constexpr StartGrpcFn kStartChecked = Start;
[[maybe_unused]] constexpr StopGrpcFn kStopChecked = Stop;

}  // namespace
}  // namespace inferd::grpc_frontend

extern "C" __attribute__((visibility("default"))) inferd::grpc_frontend::GrpcServer*
InferdGrpcFrontendStart(INFERD_Server* server, const inferd::grpc_frontend::GrpcOptions& options,
                        uint16_t* port, std::string* error) {
  return inferd::grpc_frontend::Start(server, options, port, error);
}

extern "C" __attribute__((visibility("default"))) void InferdGrpcFrontendStop(
    inferd::grpc_frontend::GrpcServer* server) {
  inferd::grpc_frontend::Stop(server);
}

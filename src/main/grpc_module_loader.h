// Loads libinferd_grpc_frontend.so (see frontends/grpc/grpc_module.h) and
// runs the gRPC frontend from it. Used by main only; not thread-safe.
#ifndef INFERD_GRPC_MODULE_LOADER_H_
#define INFERD_GRPC_MODULE_LOADER_H_

#include <cstdint>
#include <string>

#include "grpc/grpc_module.h"

namespace inferd {

class GrpcModule {
 public:
  GrpcModule() = default;
  ~GrpcModule();  // stops the frontend if it runs; the module stays loaded
  GrpcModule(const GrpcModule&) = delete;
  GrpcModule& operator=(const GrpcModule&) = delete;

  // Loads the module from `folder` and starts the frontend; returns "" or
  // what went wrong (the module missing or broken, the port in use, ...).
  std::string Start(const std::string& folder, INFERD_Server* server,
                    const grpc_frontend::GrpcOptions& options);
  uint16_t port() const { return port_; }
  // Stops the frontend (idempotent).
  void Stop();

 private:
  grpc_frontend::StopGrpcFn stop_ = nullptr;
  grpc_frontend::GrpcServer* frontend_ = nullptr;
  uint16_t port_ = 0;
};

}  // namespace inferd

#endif  // INFERD_GRPC_MODULE_LOADER_H_

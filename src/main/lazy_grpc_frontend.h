// The gRPC frontend, loaded on its first connection. gRPC's libraries (the
// module frontends/grpc/grpc_module.h, with libgrpc++, abseil and their
// threads) are about half of an idle server's memory, and many servers are
// never spoken to over gRPC. So the binary binds and listens on the gRPC
// address itself, waits for connections on one thread blocked in poll (no
// CPU while idle), and loads the module only when the first client connects:
// it then starts a grpc::Server without a listening port and hands it every
// accepted connection, the first included (gRPC's AddInsecureChannelFromFd;
// gRPC applies its server channel arguments, keepalive and connection age
// included, to those connections as to its own).
//
// Only for plaintext on a numeric address without SO_REUSEPORT
// (CanLoadGrpcLazily); TLS, --reuse-grpc-port and host names keep the module's
// own listener, loaded at start.
#ifndef INFERD_LAZY_GRPC_FRONTEND_H_
#define INFERD_LAZY_GRPC_FRONTEND_H_

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "common/connection_frontend.h"
#include "grpc/grpc_server.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd {

// Whether `options` can be served from connections accepted by the binary.
bool CanLoadGrpcLazily(const grpc_frontend::GrpcOptions& options);

// A Frontend like the module's: Start binds (port 0: an ephemeral one) and
// fails when the address is taken; port, Stop and the destructor as
// Frontend says. Start, port and Stop from one controlling thread.
class LazyGrpcFrontend final : public Frontend {
 public:
  // `module_folder` holds the module; `server` must outlive this object.
  LazyGrpcFrontend(std::string module_folder, INFERD_Server* server,
                   grpc_frontend::GrpcOptions options);
  ~LazyGrpcFrontend() override;  // stops

  // UNAVAILABLE when the module is missing (checked now, loaded later) or
  // the address cannot be listened on.
  Status Start() override;
  uint16_t port() const override { return port_; }
  // Stops accepting and closes the listening socket, then has the loaded
  // gRPC frontend drain (GOAWAY on its connections).
  void BeginDrain(std::chrono::seconds bound) override;
  // Stops accepting, closes the listening socket, then stops gRPC if loaded.
  void Stop() override;
  void AnswerInFlightAtExit(const std::string& why) override;

 private:
  void AcceptLoop();
  void Serve(int fd);
  void CloseListener();
  // Ends the accepting thread and closes the listening socket; idempotent.
  void StopAccepting();
  // Loads and starts the module's frontend once; false if that failed.
  bool EnsureLoaded();

  // Constant after Start.
  const std::string module_folder_;
  INFERD_Server* const server_;
  const grpc_frontend::GrpcOptions options_;
  int wake_fd_ = -1;  // an eventfd: Stop's signal to the accept loop
  uint16_t port_ = 0;
  // Written only by the accept thread until Stop joins it; the controlling
  // thread reads them after that.
  int listen_fd_ = -1;  // closed early (-1) when gRPC cannot be served
  std::unique_ptr<ConnectionFrontend> grpc_;
  bool load_failed_ = false;
  // grpc_ once started, for AnswerInFlightAtExit from any thread.
  std::atomic<ConnectionFrontend*> started_{nullptr};
  std::thread acceptor_;
};

}  // namespace inferd

#endif  // INFERD_LAZY_GRPC_FRONTEND_H_

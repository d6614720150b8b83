// The frontends the flags turn on (HTTP, metrics, SageMaker, Vertex AI,
// gRPC) over one server. Used by main only.
#ifndef INFERD_SERVER_FRONTENDS_H_
#define INFERD_SERVER_FRONTENDS_H_

#include <memory>
#include <string>
#include <vector>

#include "common/frontend.h"
#include "common/shared_memory_registry.h"
#include "inferd/server.h"
#include "server_flags.h"

namespace inferd {

class ServerFrontends {
 public:
  // Neither is owned; both outlive this object. `shared_memory` holds the
  // regions of both protocols.
  ServerFrontends(INFERD_Server* server, SharedMemoryRegistry* shared_memory)
      : server_(server), shared_memory_(shared_memory) {}
  ~ServerFrontends() { Close(); }
  ServerFrontends(const ServerFrontends&) = delete;
  ServerFrontends& operator=(const ServerFrontends&) = delete;

  // Starts each frontend the flags turn on, each logging "Started <service>
  // at <address>:<port>": HTTP, metrics, SageMaker, Vertex AI, then gRPC
  // (HTTP already serves while gRPC's libraries load). False at the first
  // that cannot start, with why in the log.
  bool Start(const Flags& flags);

  // Frontend::AnswerInFlightAtExit on each started frontend.
  void AnswerInFlightAtExit(const std::string& why);

  // Frontend::Stop on each started frontend.
  void Stop();

  // Deletes the frontends (their destructors stop them), the HTTP ones first
  // and metrics last, so metrics can be read to the end. Before the server
  // is deleted.
  void Close();

 private:
  bool StartHttp(const Flags& flags);
  bool StartMetrics(const Flags& flags);
  bool StartCloud(const Flags& flags);
  bool StartGrpc(const Flags& flags);
  // The frontends in the order they stop, null where not started.
  std::vector<Frontend*> InStopOrder() const;

  INFERD_Server* const server_;
  SharedMemoryRegistry* const shared_memory_;
  std::unique_ptr<Frontend> http_;
  std::unique_ptr<Frontend> sagemaker_;
  std::unique_ptr<Frontend> vertex_ai_;
  std::unique_ptr<Frontend> grpc_;
  std::unique_ptr<Frontend> metrics_;
};

}  // namespace inferd

#endif  // INFERD_SERVER_FRONTENDS_H_

// What the cloud endpoints (SageMaker, Vertex AI) share: each is an HTTP
// server on its own port answering its RouteMap's paths with the HTTP
// frontend's sessions, so a cloud predict call parses and answers exactly as
// /v2/models/<m>/infer does. Each endpoint chooses its routes and default
// model in Start, then serves them here. A Frontend: Start, port and Stop
// from one controlling thread.
#ifndef INFERD_FRONTENDS_CLOUD_CLOUD_FRONTEND_H_
#define INFERD_FRONTENDS_CLOUD_CLOUD_FRONTEND_H_

#include <cstdint>
#include <memory>
#include <string>

#include "common/frontend.h"
#include "common/shared_memory_registry.h"
#include "http/http_server.h"
#include "http/route_map.h"
#include "inferd/server.h"

namespace inferd::cloud {

// Where a cloud endpoint listens, and how.
struct CloudEndpointOptions {
  std::string address = "0.0.0.0";
  uint16_t port = 8080;
  int thread_count = 8;
  SharedMemoryRegistry* shared_memory = nullptr;  // not owned; may be null
};

class CloudFrontend : public Frontend {
 public:
  ~CloudFrontend() override;

  uint16_t port() const final;
  void Stop() final;
  void AnswerInFlightAtExit(const std::string& why) final;

 protected:
  // Does not take ownership of server; it must outlive this object.
  explicit CloudFrontend(INFERD_Server* server) : server_(server) {}

  // Starts the HTTP server on `endpoint`, answering the paths of `routes`.
  Status Serve(const CloudEndpointOptions& endpoint, std::shared_ptr<const http::RouteMap> routes);

  INFERD_Server* server() const { return server_; }

 private:
  INFERD_Server* const server_;
  std::unique_ptr<http::HttpServer> http_;  // created by Serve
};

}  // namespace inferd::cloud

#endif  // INFERD_FRONTENDS_CLOUD_CLOUD_FRONTEND_H_

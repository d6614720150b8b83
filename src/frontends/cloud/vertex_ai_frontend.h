// The Vertex AI endpoint (--allow-vertex-ai): an HTTP server on its own port
// answering VertexAiRouteMap's routes with the HTTP frontend's sessions, so a
// predict call parses and answers exactly as /v2/models/<m>/infer does.
// Start fails, as Triton's does, when a route is not set or no default model
// can be chosen. A Frontend: Start, port and Stop from one controlling thread.
#ifndef INFERD_FRONTENDS_CLOUD_VERTEX_AI_FRONTEND_H_
#define INFERD_FRONTENDS_CLOUD_VERTEX_AI_FRONTEND_H_

#include <cstdint>
#include <memory>
#include <string>

#include "common/frontend.h"
#include "common/shared_memory_registry.h"
#include "http/http_server.h"
#include "inferd/server.h"

namespace inferd::cloud {

struct VertexAiOptions {
  std::string address = "0.0.0.0";
  uint16_t port = 8080;
  int thread_count = 8;
  std::string predict_route;  // AIP_PREDICT_ROUTE; required
  std::string health_route;   // AIP_HEALTH_ROUTE; required
  // --vertex-ai-default-model; empty: the only READY model.
  std::string default_model;
  SharedMemoryRegistry* shared_memory = nullptr;  // not owned; may be null
};

class VertexAiFrontend final : public Frontend {
 public:
  // Does not take ownership of server; it must outlive this object.
  VertexAiFrontend(INFERD_Server* server, VertexAiOptions options);
  ~VertexAiFrontend() override;

  // INVALID_ARG for a missing route or no default model; else HttpServer's.
  Status Start() override;
  uint16_t port() const override;
  void Stop() override;
  void AnswerInFlightAtExit(const std::string& why) override;

 private:
  INFERD_Server* const server_;
  const VertexAiOptions options_;
  std::unique_ptr<http::HttpServer> http_;  // created by Start
};

}  // namespace inferd::cloud

#endif  // INFERD_FRONTENDS_CLOUD_VERTEX_AI_FRONTEND_H_

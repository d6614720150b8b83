// The Vertex AI endpoint (--allow-vertex-ai): a CloudFrontend answering
// VertexAiRouteMap's routes, so a predict call parses and answers exactly as
// /v2/models/<m>/infer does. Start fails, as Triton's does, when a route is
// not set or no default model can be chosen.
#ifndef INFERD_FRONTENDS_CLOUD_VERTEX_AI_FRONTEND_H_
#define INFERD_FRONTENDS_CLOUD_VERTEX_AI_FRONTEND_H_

#include <string>

#include "cloud/cloud_frontend.h"
#include "inferd/server.h"

namespace inferd::cloud {

struct VertexAiOptions : CloudEndpointOptions {
  std::string predict_route;  // AIP_PREDICT_ROUTE; required
  std::string health_route;   // AIP_HEALTH_ROUTE; required
  // --vertex-ai-default-model; empty: the only READY model.
  std::string default_model;
};

class VertexAiFrontend final : public CloudFrontend {
 public:
  // Does not take ownership of server; it must outlive this object.
  VertexAiFrontend(INFERD_Server* server, VertexAiOptions options);

  // INVALID_ARG for a missing route or no default model; else HttpServer's.
  Status Start() override;

 private:
  const VertexAiOptions options_;
};

}  // namespace inferd::cloud

#endif  // INFERD_FRONTENDS_CLOUD_VERTEX_AI_FRONTEND_H_

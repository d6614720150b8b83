// The Vertex AI endpoint: VertexAiRouteMap over a CloudFrontend.
#include "cloud/vertex_ai_frontend.h"

#include <spdlog/spdlog.h>

#include <memory>
#include <utility>

#include "cloud/default_model.h"
#include "cloud/vertex_ai_route_map.h"

namespace inferd::cloud {

VertexAiFrontend::VertexAiFrontend(INFERD_Server* server, VertexAiOptions options)
    : CloudFrontend(server), options_(std::move(options)) {}

Status VertexAiFrontend::Start() {
  if (options_.predict_route.empty()) {
    return Status::InvalidArg("AIP_PREDICT_ROUTE is not defined for the Vertex AI endpoint");
  }
  if (options_.health_route.empty()) {
    return Status::InvalidArg("AIP_HEALTH_ROUTE is not defined for the Vertex AI endpoint");
  }
  // Triton's rule: among the models READY now.
  ASSIGN_OR_RETURN(std::string model,
                   ChooseDefaultModel(server(), options_.default_model, /*ready_only=*/true,
                                      "--vertex-ai-default-model"));
  SPDLOG_INFO("Vertex AI: {} serves model '{}', {} the server's readiness",
              options_.predict_route, model, options_.health_route);
  return Serve(options_, std::make_shared<VertexAiRouteMap>(options_.predict_route,
                                                            options_.health_route,
                                                            std::move(model)));
}

}  // namespace inferd::cloud

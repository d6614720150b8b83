// The Vertex AI endpoint: VertexAiRouteMap over an HttpServer.
#include "cloud/vertex_ai_frontend.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "cloud/default_model.h"
#include "cloud/vertex_ai_route_map.h"

namespace inferd::cloud {

VertexAiFrontend::VertexAiFrontend(INFERD_Server* server, VertexAiOptions options)
    : server_(server), options_(std::move(options)) {}

VertexAiFrontend::~VertexAiFrontend() { Stop(); }

Status VertexAiFrontend::Start() {
  if (options_.predict_route.empty()) {
    return Status::InvalidArg("AIP_PREDICT_ROUTE is not defined for the Vertex AI endpoint");
  }
  if (options_.health_route.empty()) {
    return Status::InvalidArg("AIP_HEALTH_ROUTE is not defined for the Vertex AI endpoint");
  }
  // Triton's rule: among the models READY now.
  ASSIGN_OR_RETURN(std::string model,
                   ChooseDefaultModel(server_, options_.default_model, /*ready_only=*/true,
                                      "--vertex-ai-default-model"));
  SPDLOG_INFO("Vertex AI: {} serves model '{}', {} the server's readiness",
              options_.predict_route, model, options_.health_route);
  http::HttpOptions options;
  options.address = options_.address;
  options.port = options_.port;
  options.thread_count = options_.thread_count;
  options.shared_memory = options_.shared_memory;
  options.routes = std::make_shared<VertexAiRouteMap>(options_.predict_route,
                                                      options_.health_route, std::move(model));
  http_ = std::make_unique<http::HttpServer>(server_, std::move(options));
  return http_->Start();
}

uint16_t VertexAiFrontend::port() const { return http_ ? http_->port() : 0; }

void VertexAiFrontend::Stop() {
  if (http_) http_->Stop();
}

void VertexAiFrontend::AnswerInFlightAtExit(const std::string& why) {
  if (http_) http_->AnswerInFlightAtExit(why);
}

}  // namespace inferd::cloud

// Google Vertex AI's paths, as Triton 2.51 serves them on --vertex-ai-port:
// the health route (AIP_HEALTH_ROUTE) is the server's readiness, the predict
// route (AIP_PREDICT_ROUTE) a KServe v2 infer request for the default model.
// A predict call with the X-Vertex-Ai-Triton-Redirect header goes to the
// KServe v2 endpoint the header names instead ("v2/models/m/infer",
// "v2/models/m/config", "v2/repository/index", "metrics", ...): Vertex AI
// only sends POSTs, so the endpoint is served as if called with the method
// it expects. Immutable; thread-safe.
#ifndef INFERD_FRONTENDS_CLOUD_VERTEX_AI_ROUTE_MAP_H_
#define INFERD_FRONTENDS_CLOUD_VERTEX_AI_ROUTE_MAP_H_

#include <string>
#include <string_view>

#include "http/route_map.h"

namespace inferd::cloud {

inline constexpr std::string_view kVertexAiBinaryContentType =
    "application/vnd.vertex-ai-triton.binary+json;json-header-size=";
inline constexpr std::string_view kVertexAiRedirectHeader = "X-Vertex-Ai-Triton-Redirect";

class VertexAiRouteMap final : public http::RouteMap {
 public:
  // The two routes are paths ("/v1/endpoints/1/deployedModels/2:predict"),
  // matched exactly, without the query.
  VertexAiRouteMap(std::string predict_route, std::string health_route,
                   std::string default_model);

  http::HttpError Match(http::Method method, std::string_view target,
                        const http::RequestHeaders& headers, http::Route* route) const override;
  std::string_view binary_content_type() const override { return kVertexAiBinaryContentType; }
  bool compress_responses() const override { return false; }

 private:
  http::HttpError Redirect(std::string_view redirect, http::Route* route) const;

  const std::string predict_route_;
  const std::string health_route_;
  const std::string default_model_;
};

}  // namespace inferd::cloud

#endif  // INFERD_FRONTENDS_CLOUD_VERTEX_AI_ROUTE_MAP_H_

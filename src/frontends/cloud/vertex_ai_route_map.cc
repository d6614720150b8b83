// Vertex AI's health and predict routes onto the KServe v2 endpoints.
#include "cloud/vertex_ai_route_map.h"

#include <utility>

#include "cloud/target_path.h"

namespace inferd::cloud {
using http::Endpoint;
using http::HttpError;
using http::Method;

namespace {

// The endpoints Triton lets a redirected predict call reach, read-only ones
// answered as GETs: health, metadata, readiness, configuration, statistics,
// metrics and shared memory status.
bool ReachableByGet(Endpoint endpoint) {
  switch (endpoint) {
    case Endpoint::kHealthLive:
    case Endpoint::kHealthReady:
    case Endpoint::kServerMetadata:
    case Endpoint::kModelMetadata:
    case Endpoint::kModelReady:
    case Endpoint::kModelConfig:
    case Endpoint::kModelStats:
    case Endpoint::kMetrics:
    case Endpoint::kSharedMemoryStatus:
      return true;
    default:
      return false;
  }
}

// ... and the ones answered as POSTs: inference, the repository extension,
// shared memory registration (CUDA shared memory is kNotSupported here).
bool ReachableByPost(Endpoint endpoint) {
  switch (endpoint) {
    case Endpoint::kModelInfer:
    case Endpoint::kRepositoryIndex:
    case Endpoint::kRepositoryLoad:
    case Endpoint::kRepositoryUnload:
    case Endpoint::kSharedMemoryRegister:
    case Endpoint::kSharedMemoryUnregister:
    case Endpoint::kNotSupported:
      return true;
    default:
      return false;
  }
}

}  // namespace

VertexAiRouteMap::VertexAiRouteMap(std::string predict_route, std::string health_route,
                                   std::string default_model)
    : predict_route_(std::move(predict_route)),
      health_route_(std::move(health_route)),
      default_model_(std::move(default_model)) {}

HttpError VertexAiRouteMap::Match(Method method, std::string_view target,
                                  const http::RequestHeaders& headers, http::Route* route) const {
  const std::string_view path = TargetPath(target);
  if (path == health_route_) {
    if (method != Method::kGet) return MethodNotAllowed("GET", path);
    route->endpoint = Endpoint::kHealthReady;
    return Status::Ok();
  }
  if (path == predict_route_) {
    if (method != Method::kPost) return MethodNotAllowed("POST", path);
    const std::string_view redirect = headers.Get(kVertexAiRedirectHeader);
    if (!redirect.empty()) return Redirect(redirect, route);
    route->endpoint = Endpoint::kModelInfer;
    route->model = default_model_;
    return Status::Ok();
  }
  return HttpError(400, Status::InvalidArg("unknown Vertex AI path '" + std::string(path) +
                                           "' (the Vertex AI port serves GET " + health_route_ +
                                           " and POST " + predict_route_ + ")"));
}

HttpError VertexAiRouteMap::Redirect(std::string_view redirect, http::Route* route) const {
  std::string path(1, '/');
  path.append(redirect);
  http::Route found;
  if (http::MatchRoute(Method::kGet, path, &found).ok() && ReachableByGet(found.endpoint)) {
    *route = std::move(found);
    return Status::Ok();
  }
  found = http::Route();
  if (http::MatchRoute(Method::kPost, path, &found).ok() && ReachableByPost(found.endpoint)) {
    *route = std::move(found);
    return Status::Ok();
  }
  std::string message(kVertexAiRedirectHeader);
  message.append(" '").append(redirect).append(
      "' names no endpoint a predict call can be redirected to");
  return HttpError(400, Status::InvalidArg(std::move(message)));
}

}  // namespace inferd::cloud

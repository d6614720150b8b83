// SageMaker's /ping and /invocations onto the KServe v2 endpoints.
#include "cloud/sagemaker_route_map.h"

#include <utility>

#include "cloud/target_path.h"

namespace inferd::cloud {
using http::Endpoint;
using http::HttpError;
using http::Method;

SageMakerRouteMap::SageMakerRouteMap(StatusOr<std::string> default_model, bool ping_live)
    : default_model_(std::move(default_model)), ping_live_(ping_live) {}

HttpError SageMakerRouteMap::Match(Method method, std::string_view target,
                                   const http::RequestHeaders& /*headers*/,
                                   http::Route* route) const {
  const std::string_view path = TargetPath(target);
  if (path == "/ping") {
    if (method != Method::kGet) return MethodNotAllowed("GET", path);
    route->endpoint = ping_live_ ? Endpoint::kHealthLive : Endpoint::kHealthReady;
    return Status::Ok();
  }
  if (path == "/invocations") {
    if (method != Method::kPost) return MethodNotAllowed("POST", path);
    if (!default_model_.ok()) {
      return HttpError(400, Status::InvalidArg("/invocations: no default model: " +
                                               default_model_.status().message()));
    }
    route->endpoint = Endpoint::kModelInfer;
    route->model = default_model_.value();
    return Status::Ok();
  }
  if (path == "/models" || path.starts_with("/models/")) {
    return HttpError(501, Status::Unsupported("SageMaker multi-model endpoints (" +
                                              std::string(path) +
                                              ") are not supported by this server"));
  }
  return HttpError(400, Status::InvalidArg("unknown SageMaker path '" + std::string(path) +
                                           "' (the SageMaker port serves GET /ping and "
                                           "POST /invocations)"));
}

}  // namespace inferd::cloud

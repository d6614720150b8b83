// Amazon SageMaker's paths, as Triton 2.51 serves them on --sagemaker-port:
// GET /ping is the server's health (readiness, or liveness in "live" ping
// mode) and POST /invocations is a KServe v2 infer request for the default
// model. SageMaker's multi-model endpoints (/models...) are answered 501.
// Immutable; thread-safe.
#ifndef INFERD_FRONTENDS_CLOUD_SAGEMAKER_ROUTE_MAP_H_
#define INFERD_FRONTENDS_CLOUD_SAGEMAKER_ROUTE_MAP_H_

#include <string>
#include <string_view>

#include "http/route_map.h"
#include "inferd/base/status.h"

namespace inferd::cloud {

// The Content-Type of a binary body on the SageMaker port, followed by the
// JSON length.
inline constexpr std::string_view kSageMakerBinaryContentType =
    "application/vnd.sagemaker-triton.binary+json;json-header-size=";

class SageMakerRouteMap final : public http::RouteMap {
 public:
  // `default_model`: the model /invocations serves, or the reason there is
  // none (every /invocations is then answered 400 with it). `ping_live`:
  // /ping answers liveness instead of readiness.
  SageMakerRouteMap(StatusOr<std::string> default_model, bool ping_live);

  http::HttpError Match(http::Method method, std::string_view target,
                        const http::RequestHeaders& headers, http::Route* route) const override;
  std::string_view binary_content_type() const override { return kSageMakerBinaryContentType; }
  bool compress_responses() const override { return false; }

 private:
  const StatusOr<std::string> default_model_;
  const bool ping_live_;
};

}  // namespace inferd::cloud

#endif  // INFERD_FRONTENDS_CLOUD_SAGEMAKER_ROUTE_MAP_H_

// The SageMaker endpoint: SageMakerRouteMap over a CloudFrontend.
#include "cloud/sagemaker_frontend.h"

#include <spdlog/spdlog.h>

#include <memory>
#include <utility>

#include "cloud/default_model.h"
#include "cloud/sagemaker_route_map.h"

namespace inferd::cloud {

SageMakerFrontend::SageMakerFrontend(INFERD_Server* server, SageMakerOptions options)
    : CloudFrontend(server), options_(std::move(options)) {}

Status SageMakerFrontend::Start() {
  // A model named is used as it is (a request for a model that is not there
  // is answered as on the HTTP port). Else every model the repositories hold
  // counts, loaded or not: Triton's serve script picks the only model folder.
  StatusOr<std::string> model = options_.default_model;
  if (options_.default_model.empty()) {
    model = ChooseDefaultModel(server(), "", /*ready_only=*/false,
                               "SAGEMAKER_TRITON_DEFAULT_MODEL_NAME");
  }
  if (model.ok()) {
    SPDLOG_INFO("SageMaker: /invocations serves model '{}'", *model);
  } else {
    SPDLOG_WARN("SageMaker: /invocations has no model: {}", model.status().message());
  }
  return Serve(options_,
               std::make_shared<SageMakerRouteMap>(std::move(model), options_.ping_live));
}

}  // namespace inferd::cloud

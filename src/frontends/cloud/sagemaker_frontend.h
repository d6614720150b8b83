// The SageMaker endpoint (--allow-sagemaker): a CloudFrontend answering
// SageMakerRouteMap's paths, so /invocations parses and answers exactly as
// /v2/models/<m>/infer does. The default model is chosen when it starts.
#ifndef INFERD_FRONTENDS_CLOUD_SAGEMAKER_FRONTEND_H_
#define INFERD_FRONTENDS_CLOUD_SAGEMAKER_FRONTEND_H_

#include <string>

#include "cloud/cloud_frontend.h"
#include "inferd/server.h"

namespace inferd::cloud {

struct SageMakerOptions : CloudEndpointOptions {
  // The model /invocations serves (SAGEMAKER_TRITON_DEFAULT_MODEL_NAME),
  // loaded or not; empty: the repository's only model. When neither names
  // one, the server still starts and /invocations says why it has no model.
  std::string default_model;
  // /ping answers liveness instead of readiness (SAGEMAKER_TRITON_PING_MODE=live).
  bool ping_live = false;
};

class SageMakerFrontend final : public CloudFrontend {
 public:
  // Does not take ownership of server; it must outlive this object.
  SageMakerFrontend(INFERD_Server* server, SageMakerOptions options);

  Status Start() override;

 private:
  const SageMakerOptions options_;
};

}  // namespace inferd::cloud

#endif  // INFERD_FRONTENDS_CLOUD_SAGEMAKER_FRONTEND_H_

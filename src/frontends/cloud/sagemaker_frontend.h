// The SageMaker endpoint (--allow-sagemaker): an HTTP server on its own port
// answering SageMakerRouteMap's paths with the HTTP frontend's sessions, so
// /invocations parses and answers exactly as /v2/models/<m>/infer does. The
// default model is chosen when it starts. A Frontend: Start, port and Stop
// from one controlling thread.
#ifndef INFERD_FRONTENDS_CLOUD_SAGEMAKER_FRONTEND_H_
#define INFERD_FRONTENDS_CLOUD_SAGEMAKER_FRONTEND_H_

#include <cstdint>
#include <memory>
#include <string>

#include "common/frontend.h"
#include "common/shared_memory_registry.h"
#include "http/http_server.h"
#include "inferd/server.h"

namespace inferd::cloud {

struct SageMakerOptions {
  std::string address = "0.0.0.0";
  uint16_t port = 8080;
  int thread_count = 8;
  // The model /invocations serves (SAGEMAKER_TRITON_DEFAULT_MODEL_NAME),
  // loaded or not; empty: the repository's only model. When neither names
  // one, the server still starts and /invocations says why it has no model.
  std::string default_model;
  // /ping answers liveness instead of readiness (SAGEMAKER_TRITON_PING_MODE=live).
  bool ping_live = false;
  SharedMemoryRegistry* shared_memory = nullptr;  // not owned; may be null
};

class SageMakerFrontend final : public Frontend {
 public:
  // Does not take ownership of server; it must outlive this object.
  SageMakerFrontend(INFERD_Server* server, SageMakerOptions options);
  ~SageMakerFrontend() override;

  Status Start() override;
  uint16_t port() const override;
  void Stop() override;
  void AnswerInFlightAtExit(const std::string& why) override;

 private:
  INFERD_Server* const server_;
  const SageMakerOptions options_;
  std::unique_ptr<http::HttpServer> http_;  // created by Start
};

}  // namespace inferd::cloud

#endif  // INFERD_FRONTENDS_CLOUD_SAGEMAKER_FRONTEND_H_

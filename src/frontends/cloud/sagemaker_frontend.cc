// The SageMaker endpoint: SageMakerRouteMap over an HttpServer.
#include "cloud/sagemaker_frontend.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "cloud/default_model.h"
#include "cloud/sagemaker_route_map.h"

namespace inferd::cloud {

SageMakerFrontend::SageMakerFrontend(INFERD_Server* server, SageMakerOptions options)
    : server_(server), options_(std::move(options)) {}

SageMakerFrontend::~SageMakerFrontend() { Stop(); }

Status SageMakerFrontend::Start() {
  // A model named is used as it is (a request for a model that is not there
  // is answered as on the HTTP port). Else every model the repositories hold
  // counts, loaded or not: Triton's serve script picks the only model folder.
  StatusOr<std::string> model = options_.default_model;
  if (options_.default_model.empty()) {
    model = ChooseDefaultModel(server_, "", /*ready_only=*/false,
                               "SAGEMAKER_TRITON_DEFAULT_MODEL_NAME");
  }
  if (model.ok()) {
    SPDLOG_INFO("SageMaker: /invocations serves model '{}'", *model);
  } else {
    SPDLOG_WARN("SageMaker: /invocations has no model: {}", model.status().message());
  }
  http::HttpOptions options;
  options.address = options_.address;
  options.port = options_.port;
  options.thread_count = options_.thread_count;
  options.shared_memory = options_.shared_memory;
  options.routes = std::make_shared<SageMakerRouteMap>(std::move(model), options_.ping_live);
  http_ = std::make_unique<http::HttpServer>(server_, std::move(options));
  return http_->Start();
}

uint16_t SageMakerFrontend::port() const { return http_ ? http_->port() : 0; }

void SageMakerFrontend::Stop() {
  if (http_) http_->Stop();
}

void SageMakerFrontend::AnswerInFlightAtExit(const std::string& why) {
  if (http_) http_->AnswerInFlightAtExit(why);
}

}  // namespace inferd::cloud

#include "cloud/cloud_frontend.h"

#include <utility>

namespace inferd::cloud {

CloudFrontend::~CloudFrontend() { Stop(); }

Status CloudFrontend::Serve(const CloudEndpointOptions& endpoint,
                            std::shared_ptr<const http::RouteMap> routes) {
  http::HttpOptions options;
  options.address = endpoint.address;
  options.port = endpoint.port;
  options.thread_count = endpoint.thread_count;
  options.shared_memory = endpoint.shared_memory;
  options.routes = std::move(routes);
  http_ = std::make_unique<http::HttpServer>(server_, std::move(options));
  return http_->Start();
}

uint16_t CloudFrontend::port() const { return http_ ? http_->port() : 0; }

void CloudFrontend::Stop() {
  if (http_) http_->Stop();
}

void CloudFrontend::AnswerInFlightAtExit(const std::string& why) {
  if (http_) http_->AnswerInFlightAtExit(why);
}

}  // namespace inferd::cloud

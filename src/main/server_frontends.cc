#include "server_frontends.h"

#include <spdlog/spdlog.h>

#include <cstdint>
#include <string_view>
#include <utility>

#include "cloud/sagemaker_frontend.h"
#include "cloud/vertex_ai_frontend.h"
#include "cloud_flags.h"
#include "grpc_module_loader.h"
#include "http/http_server.h"
#include "https_module_loader.h"
#include "lazy_grpc_frontend.h"
#include "server_from_flags.h"

namespace inferd {

namespace {

// Logs why the frontend `what` that was to listen on `address`:`port` could
// not start; returns false.
bool StartFailed(std::string_view what, const std::string& address, int port,
                 const Status& why) {
  SPDLOG_ERROR("failed to start the {} on {}:{}: {}", what, address, port, why.message());
  return false;
}

// Starts `frontend` and logs "Started <service> at <address>:<port>"; on
// failure logs why (StartFailed) and returns false.
bool StartFrontend(Frontend& frontend, std::string_view service, std::string_view what,
                   const std::string& address, int port) {
  if (const Status s = frontend.Start(); !s.ok()) return StartFailed(what, address, port, s);
  SPDLOG_INFO("Started {} at {}:{}", service, address, frontend.port());
  return true;
}

// Creates the cloud endpoint `Endpoint` with `options` into `endpoint` and
// starts it.
template <typename Endpoint, typename Options>
bool StartCloudEndpoint(INFERD_Server* server, Options options,
                        SharedMemoryRegistry* shared_memory, std::string_view service,
                        std::string_view what, std::unique_ptr<Frontend>& endpoint) {
  options.shared_memory = shared_memory;
  endpoint = std::make_unique<Endpoint>(server, options);
  return StartFrontend(*endpoint, service, what, options.address, options.port);
}

}  // namespace

bool ServerFrontends::Start(const Flags& flags) {
  return (!flags.allow_http || StartHttp(flags)) &&
         (!flags.allow_metrics || StartMetrics(flags)) && StartCloud(flags) &&
         (!flags.allow_grpc || StartGrpc(flags));
}

// The binary's own HTTP frontend, or for HTTPS the module's
// (http/https_module.h), loaded now.
bool ServerFrontends::StartHttp(const Flags& flags) {
  http::HttpOptions options;
  options.address = flags.http_address;
  options.port = static_cast<uint16_t>(flags.http_port);
  options.thread_count = flags.http_thread_count;
  options.reuse_port = flags.reuse_http_port;
  options.header_forward_pattern = flags.http_header_forward_pattern;
  options.restrictions = flags.http_restrictions;
  options.tls = flags.http_tls;
  options.limits = flags.http_limits;
  options.shared_memory = shared_memory_;
  if (flags.http_tls.enabled()) {
    StatusOr<std::unique_ptr<Frontend>> loaded =
        LoadHttpsFrontend(ExecutableDirectory(), server_, options);
    if (!loaded.ok()) {
      return StartFailed("HTTP service", flags.http_address, flags.http_port, loaded.status());
    }
    http_ = std::move(loaded).value();
  } else {
    http_ = std::make_unique<http::HttpServer>(server_, options);
  }
  if (!StartFrontend(*http_, "HTTPService", "HTTP service", flags.http_address,
                     flags.http_port)) {
    return false;
  }
  if (flags.http_tls.enabled()) {
    SPDLOG_INFO("HTTPService speaks HTTPS only{}",
                flags.http_tls.use_mutual_ssl ? ", clients need a certificate (mutual TLS)" : "");
  }
  return true;
}

bool ServerFrontends::StartMetrics(const Flags& flags) {
  http::HttpOptions options;
  options.address = flags.metrics_address;
  options.port = static_cast<uint16_t>(flags.metrics_port);
  options.thread_count = 1;
  options.metrics_only = true;
  metrics_ = std::make_unique<http::HttpServer>(server_, options);
  return StartFrontend(*metrics_, "Metrics Service", "metrics service", flags.metrics_address,
                       flags.metrics_port);
}

// The cloud endpoints: the HTTP frontend's sessions on their own ports and paths.
bool ServerFrontends::StartCloud(const Flags& flags) {
  if (flags.cloud.allow_sagemaker &&
      !StartCloudEndpoint<cloud::SageMakerFrontend>(server_, SageMakerOptionsFrom(flags.cloud),
                                                    shared_memory_, "Sagemaker HTTPService",
                                                    "SageMaker service", sagemaker_)) {
    return false;
  }
  return !flags.cloud.allow_vertex_ai ||
         StartCloudEndpoint<cloud::VertexAiFrontend>(server_, VertexAiOptionsFrom(flags.cloud),
                                                     shared_memory_, "Vertex AI HTTPService",
                                                     "Vertex AI service", vertex_ai_);
}

// The binary's lazy listener where the settings allow it
// (lazy_grpc_frontend.h), else the module's own listener, loaded now.
bool ServerFrontends::StartGrpc(const Flags& flags) {
  grpc_frontend::GrpcOptions options = flags.grpc;
  options.shared_memory = shared_memory_;
  if (flags.grpc_load_on_first_connection && CanLoadGrpcLazily(options)) {
    grpc_ = std::make_unique<LazyGrpcFrontend>(ExecutableDirectory(), server_, options);
  } else {
    StatusOr<std::unique_ptr<ConnectionFrontend>> loaded =
        LoadGrpcFrontend(ExecutableDirectory(), server_, options);
    if (!loaded.ok()) {
      return StartFailed("gRPC service", options.address, options.port, loaded.status());
    }
    grpc_ = std::move(loaded).value();
  }
  return StartFrontend(*grpc_, "GRPCInferenceService", "gRPC service", options.address,
                       options.port);
}

std::vector<Frontend*> ServerFrontends::InStopOrder() const {
  return {http_.get(), sagemaker_.get(), vertex_ai_.get(), grpc_.get(), metrics_.get()};
}

void ServerFrontends::AnswerInFlightAtExit(const std::string& why) {
  for (Frontend* frontend : InStopOrder()) {
    if (frontend != nullptr) frontend->AnswerInFlightAtExit(why);
  }
}

void ServerFrontends::Stop() {
  for (Frontend* frontend : InStopOrder()) {
    if (frontend != nullptr) frontend->Stop();
  }
}

void ServerFrontends::Close() {
  for (std::unique_ptr<Frontend>* frontend :
       {&http_, &sagemaker_, &vertex_ai_, &grpc_, &metrics_}) {
    frontend->reset();
  }
}

}  // namespace inferd

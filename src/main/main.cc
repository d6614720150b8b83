// The inferd binary: command-line flags (server_flags.h) -> an in-process
// server (server.h) -> the HTTP, metrics and gRPC frontends; then waits for
// SIGINT or SIGTERM and shuts down gracefully.
#include <signal.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cloud/sagemaker_frontend.h"
#include "cloud/vertex_ai_frontend.h"
#include "cloud_flags.h"
#include "common/frontend.h"
#include "common/shared_memory_registry.h"
#include "exit_watchdog.h"
#include "grpc_module_loader.h"
#include "http/http_server.h"
#include "https_module_loader.h"
#include "inert_flags.h"
#include "lazy_grpc_frontend.h"
#include "inferd/server.h"
#include "server_flags.h"

using inferd::ExecutableDirectory;
using inferd::Failed;
using inferd::Frontend;

namespace {

// Starts `frontend` and logs "Started <service> at <address>:<port>"; on
// failure logs why, naming `what` and where it was to listen, and returns false.
bool StartFrontend(Frontend& frontend, std::string_view service, std::string_view what,
                   const std::string& address, int port) {
  if (const inferd::Status s = frontend.Start(); !s.ok()) {
    SPDLOG_ERROR("failed to start the {} on {}:{}: {}", what, address, port, s.message());
    return false;
  }
  SPDLOG_INFO("Started {} at {}:{}", service, address, frontend.port());
  return true;
}

// Every endpoint the flags turn on, for the cloud port checks.
std::vector<inferd::Listener> Listeners(const inferd::Flags& flags) {
  std::vector<inferd::Listener> listeners;
  if (flags.allow_http) listeners.push_back({"HTTP", flags.http_address, flags.http_port});
  if (flags.allow_grpc) listeners.push_back({"GRPC", flags.grpc.address, flags.grpc.port});
  if (flags.allow_metrics) {
    listeners.push_back({"metrics", flags.metrics_address, flags.metrics_port});
  }
  if (flags.cloud.allow_sagemaker) {
    listeners.push_back({"SageMaker", "0.0.0.0", flags.cloud.sagemaker_port});
  }
  if (flags.cloud.allow_vertex_ai) {
    listeners.push_back({"Vertex AI", "0.0.0.0", flags.cloud.vertex_ai_port});
  }
  return listeners;
}

// Creates and starts the HTTP frontend: the binary's own, or for HTTPS the
// module's (http/https_module.h), loaded now.
bool StartHttp(const inferd::Flags& flags, INFERD_Server* server,
               const inferd::http::HttpOptions& options, std::unique_ptr<Frontend>& http) {
  if (flags.http_tls.enabled()) {
    inferd::StatusOr<std::unique_ptr<Frontend>> loaded =
        inferd::LoadHttpsFrontend(ExecutableDirectory(), server, options);
    if (!loaded.ok()) {
      SPDLOG_ERROR("failed to start the HTTP service on {}:{}: {}", flags.http_address,
                   flags.http_port, loaded.status().message());
      return false;
    }
    http = std::move(loaded).value();
  } else {
    http = std::make_unique<inferd::http::HttpServer>(server, options);
  }
  return StartFrontend(*http, "HTTPService", "HTTP service", flags.http_address, flags.http_port);
}

// Creates and starts the gRPC frontend: the binary's lazy listener where the
// settings allow it, else the module's own listener, loaded now.
bool StartGrpc(const inferd::Flags& flags, INFERD_Server* server,
               std::unique_ptr<Frontend>& grpc) {
  if (flags.grpc_load_on_first_connection && inferd::CanLoadGrpcLazily(flags.grpc)) {
    grpc = std::make_unique<inferd::LazyGrpcFrontend>(ExecutableDirectory(), server, flags.grpc);
  } else {
    inferd::StatusOr<std::unique_ptr<inferd::ConnectionFrontend>> loaded =
        inferd::LoadGrpcFrontend(ExecutableDirectory(), server, flags.grpc);
    if (!loaded.ok()) {
      SPDLOG_ERROR("failed to start the gRPC service on {}:{}: {}", flags.grpc.address,
                   flags.grpc.port, loaded.status().message());
      return false;
    }
    grpc = std::move(loaded).value();
  }
  return StartFrontend(*grpc, "GRPCInferenceService", "gRPC service", flags.grpc.address,
                       flags.grpc.port);
}

}  // namespace

int main(int argc, char** argv) {
  inferd::Flags flags;
  // The cloud platforms' environment sets defaults; flags override them.
  if (!inferd::ReadCloudEnvironment(flags.cloud)) return 1;
  if (flags.cloud.vertex_ai_prediction_mode) {
    flags.allow_http = false;
    flags.allow_grpc = false;
  }
  if (std::optional<int> exit_status = inferd::ParseServerFlags(argc, argv, flags)) {
    return *exit_status;
  }
  // Before the log is set up, as Triton prints them.
  for (const std::string& warning : inferd::FlagWarnings(flags)) {
    std::fprintf(stderr, "Warning: %s\n", warning.c_str());
  }
  if (!inferd::AddVertexAiRepository(flags.cloud, flags.model_repositories)) return 1;
  if (flags.model_repositories.empty()) {
    std::fprintf(stderr, "error: --model-repository is required\n");
    return 1;
  }
  if (!inferd::CheckCloudFlags(flags.cloud, Listeners(flags))) return 1;
  if (!inferd::CheckFrontendFlags(flags)) return 1;

  // Signals are taken synchronously by sigwait below; every thread started
  // from here on inherits the blocked mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  INFERD_Server* server = inferd::CreateServer(flags);
  if (server == nullptr) return 1;
  for (const std::string& flag : flags.inert_flags_given) {
    SPDLOG_WARN("{}", inferd::InertFlagNotice(flag));
  }
  // One set of regions for both protocols; declared before the frontends
  // so it outlives them.
  inferd::SharedMemoryRegistry shared_memory;
  std::unique_ptr<Frontend> http;
  std::unique_ptr<Frontend> sagemaker;
  std::unique_ptr<Frontend> vertex_ai;
  std::unique_ptr<Frontend> metrics;
  std::unique_ptr<Frontend> grpc;
  // Stops and deletes the frontends (their destructors stop them) before the
  // server goes: the HTTP ones first and metrics last, so metrics can be read
  // to the end.
  const auto close_frontends = [&] {
    for (std::unique_ptr<Frontend>* frontend : {&http, &sagemaker, &vertex_ai, &grpc, &metrics}) {
      frontend->reset();
    }
  };
  const auto fail = [&] {
    close_frontends();
    INFERD_ServerDelete(server);
    return 1;
  };

  if (flags.allow_http) {
    inferd::http::HttpOptions options;
    options.address = flags.http_address;
    options.port = static_cast<uint16_t>(flags.http_port);
    options.thread_count = flags.http_thread_count;
    options.reuse_port = flags.reuse_http_port;
    options.header_forward_pattern = flags.http_header_forward_pattern;
    options.restrictions = flags.http_restrictions;
    options.tls = flags.http_tls;
    options.limits = flags.http_limits;
    options.shared_memory = &shared_memory;
    if (!StartHttp(flags, server, options, http)) return fail();
    if (flags.http_tls.enabled()) {
      SPDLOG_INFO("HTTPService speaks HTTPS only{}",
                  flags.http_tls.use_mutual_ssl ? ", clients need a certificate (mutual TLS)" : "");
    }
  }
  if (flags.allow_metrics) {
    inferd::http::HttpOptions options;
    options.address = flags.metrics_address;
    options.port = static_cast<uint16_t>(flags.metrics_port);
    options.thread_count = 1;
    options.metrics_only = true;
    metrics = std::make_unique<inferd::http::HttpServer>(server, options);
    if (!StartFrontend(*metrics, "Metrics Service", "metrics service", flags.metrics_address,
                       flags.metrics_port)) {
      return fail();
    }
  }
  // The cloud endpoints: the HTTP frontend's sessions on their own ports and paths.
  if (flags.cloud.allow_sagemaker) {
    inferd::cloud::SageMakerOptions options = inferd::SageMakerOptionsFrom(flags.cloud);
    options.shared_memory = &shared_memory;
    sagemaker = std::make_unique<inferd::cloud::SageMakerFrontend>(server, options);
    if (!StartFrontend(*sagemaker, "Sagemaker HTTPService", "SageMaker service", options.address,
                       options.port)) {
      return fail();
    }
  }
  if (flags.cloud.allow_vertex_ai) {
    inferd::cloud::VertexAiOptions options = inferd::VertexAiOptionsFrom(flags.cloud);
    options.shared_memory = &shared_memory;
    vertex_ai = std::make_unique<inferd::cloud::VertexAiFrontend>(server, options);
    if (!StartFrontend(*vertex_ai, "Vertex AI HTTPService", "Vertex AI service", options.address,
                       options.port)) {
      return fail();
    }
  }
  // Last: HTTP already serves while gRPC's libraries load. Where it can,
  // gRPC loads on its first connection instead (lazy_grpc_frontend.h).
  if (flags.allow_grpc) {
    flags.grpc.shared_memory = &shared_memory;
    if (!StartGrpc(flags, server, grpc)) return fail();
  }

  int signal_number = 0;
  sigwait(&signals, &signal_number);
  SPDLOG_INFO("received signal {}; waiting up to {}s for in-flight requests", signal_number,
              flags.exit_timeout_secs);
  // The whole exit is bounded: past the timeout, what is still in flight
  // (an execution that does not end) gets an error and the process ends.
  inferd::ExitWatchdog watchdog(std::chrono::seconds(flags.exit_timeout_secs), [&] {
    const std::string why = "the server is exiting: --exit-timeout-secs=" +
                            std::to_string(flags.exit_timeout_secs) +
                            " ran out while the request was in flight";
    SPDLOG_WARN("exit timeout of {}s ran out with requests in flight; answering them with an "
                "error and exiting",
                flags.exit_timeout_secs);
    for (Frontend* frontend :
         {http.get(), sagemaker.get(), vertex_ai.get(), grpc.get(), metrics.get()}) {
      if (frontend != nullptr) frontend->AnswerInFlightAtExit(why);
    }
    spdlog::default_logger()->flush();
    std::_Exit(1);  // threads still in a backend's execute are not joined
  });
  // Stop the server first (new requests are refused, in-flight ones finish and
  // are answered over the still-running frontends), then the frontends. The
  // frontend objects stay until the watchdog is disarmed: it may reach them.
  const bool clean = !Failed(INFERD_ServerStop(server), "stopping the server");
  for (Frontend* frontend :
       {http.get(), sagemaker.get(), vertex_ai.get(), grpc.get(), metrics.get()}) {
    if (frontend != nullptr) frontend->Stop();
  }
  watchdog.Disarm();
  close_frontends();
  INFERD_ServerDelete(server);
  SPDLOG_INFO("inferd exited");
  return clean ? 0 : 1;
}

// The inferd binary: command-line flags (server_flags.h) -> an in-process
// server (server.h) -> the HTTP, metrics and gRPC frontends; then waits for
// SIGINT or SIGTERM and shuts down gracefully.
#include <signal.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <memory>
#include <string>

#include "common/shared_memory_registry.h"
#include "http/http_server.h"
#include "grpc_module_loader.h"
#include "inferd/server.h"
#include "server_flags.h"

using inferd::ExecutableDirectory;
using inferd::Failed;

int main(int argc, char** argv) {
  CLI::App app{"inferd: a model-inference server for Triton-style model repositories"};
  inferd::Flags flags;
  inferd::AddServerFlags(app, flags);
  CLI11_PARSE(app, argc, argv);

  // Signals are taken synchronously by sigwait below; every thread started
  // from here on inherits the blocked mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  INFERD_Server* server = inferd::CreateServer(flags);
  if (server == nullptr) return 1;
  // One set of regions for both protocols; declared before the frontends
  // so it outlives them.
  inferd::SharedMemoryRegistry shared_memory;

  std::unique_ptr<inferd::http::HttpServer> http;
  if (flags.allow_http) {
    inferd::http::HttpOptions http_options;
    http_options.address = flags.http_address;
    http_options.port = static_cast<uint16_t>(flags.http_port);
    http_options.thread_count = flags.http_thread_count;
    http_options.shared_memory = &shared_memory;
    http = std::make_unique<inferd::http::HttpServer>(server, http_options);
    const std::string error = http->Start();
    if (!error.empty()) {
      SPDLOG_ERROR("failed to start the HTTP service on {}:{}: {}", flags.http_address,
                    flags.http_port, error);
      INFERD_ServerDelete(server);
      return 1;
    }
    SPDLOG_INFO("Started HTTPService at {}:{}", flags.http_address, http->port());
  }

  std::unique_ptr<inferd::http::HttpServer> metrics;
  if (flags.allow_metrics) {
    inferd::http::HttpOptions metrics_options;
    metrics_options.address = flags.metrics_address;
    metrics_options.port = static_cast<uint16_t>(flags.metrics_port);
    metrics_options.thread_count = 1;
    metrics_options.metrics_only = true;
    metrics = std::make_unique<inferd::http::HttpServer>(server, metrics_options);
    const std::string error = metrics->Start();
    if (!error.empty()) {
      SPDLOG_ERROR("failed to start the metrics service on {}:{}: {}", flags.metrics_address,
                    flags.metrics_port, error);
      if (http) http->Stop();
      INFERD_ServerDelete(server);
      return 1;
    }
    SPDLOG_INFO("Started Metrics Service at {}:{}", flags.metrics_address, metrics->port());
  }

  // Last: HTTP already serves while gRPC's libraries load.
  std::unique_ptr<inferd::GrpcModule> grpc;
  if (flags.allow_grpc) {
    flags.grpc.shared_memory = &shared_memory;
    grpc = std::make_unique<inferd::GrpcModule>();
    const std::string error = grpc->Start(ExecutableDirectory(), server, flags.grpc);
    if (!error.empty()) {
      SPDLOG_ERROR("failed to start the gRPC service on {}:{}: {}", flags.grpc.address,
                    flags.grpc.port, error);
      if (http) http->Stop();
      if (metrics) metrics->Stop();
      INFERD_ServerDelete(server);
      return 1;
    }
    SPDLOG_INFO("Started GRPCInferenceService at {}:{}", flags.grpc.address, grpc->port());
  }

  int signal_number = 0;
  sigwait(&signals, &signal_number);
  SPDLOG_INFO("received signal {}; waiting up to {}s for in-flight requests", signal_number,
               flags.exit_timeout_secs);
  // Stop the server first (new requests are refused, in-flight ones finish and
  // are answered over the still-running frontend), then the frontend.
  const bool clean = !Failed(INFERD_ServerStop(server), "stopping the server");
  if (http) http->Stop();
  if (grpc) grpc->Stop();
  if (metrics) metrics->Stop();
  INFERD_ServerDelete(server);
  SPDLOG_INFO("inferd exited");
  return clean ? 0 : 1;
}

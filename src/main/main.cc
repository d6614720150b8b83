// The inferd binary: command-line flags (server_flags.h) -> an in-process
// server (server.h) -> the HTTP, metrics and gRPC frontends; then waits for
// SIGINT or SIGTERM and shuts down gracefully.
#include <signal.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "common/frontend.h"
#include "common/shared_memory_registry.h"
#include "exit_watchdog.h"
#include "grpc_module_loader.h"
#include "http/http_server.h"
#include "inert_flags.h"
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

}  // namespace

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
  for (const std::string& flag : flags.inert_flags_given) {
    SPDLOG_WARN("{}", inferd::InertFlagNotice(flag));
  }
  // One set of regions for both protocols; declared before the frontends
  // so it outlives them.
  inferd::SharedMemoryRegistry shared_memory;
  std::unique_ptr<Frontend> http;
  std::unique_ptr<Frontend> metrics;
  std::unique_ptr<Frontend> grpc;
  // Stops and deletes the frontends (their destructors stop them) before the
  // server goes: HTTP first and metrics last, so metrics can be read to the end.
  const auto close_frontends = [&] {
    for (std::unique_ptr<Frontend>* frontend : {&http, &grpc, &metrics}) frontend->reset();
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
    options.shared_memory = &shared_memory;
    http = std::make_unique<inferd::http::HttpServer>(server, options);
    if (!StartFrontend(*http, "HTTPService", "HTTP service", flags.http_address, flags.http_port)) {
      return fail();
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
  // Last: HTTP already serves while gRPC's libraries load.
  if (flags.allow_grpc) {
    flags.grpc.shared_memory = &shared_memory;
    inferd::StatusOr<std::unique_ptr<Frontend>> loaded =
        inferd::LoadGrpcFrontend(ExecutableDirectory(), server, flags.grpc);
    if (!loaded.ok()) {
      SPDLOG_ERROR("failed to start the gRPC service on {}:{}: {}", flags.grpc.address,
                   flags.grpc.port, loaded.status().message());
      return fail();
    }
    grpc = std::move(loaded).value();
    if (!StartFrontend(*grpc, "GRPCInferenceService", "gRPC service", flags.grpc.address,
                       flags.grpc.port)) {
      return fail();
    }
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
    for (Frontend* frontend : {http.get(), grpc.get(), metrics.get()}) {
      if (frontend != nullptr) frontend->AnswerInFlightAtExit(why);
    }
    spdlog::default_logger()->flush();
    std::_Exit(1);  // threads still in a backend's execute are not joined
  });
  // Stop the server first (new requests are refused, in-flight ones finish and
  // are answered over the still-running frontends), then the frontends. The
  // frontend objects stay until the watchdog is disarmed: it may reach them.
  const bool clean = !Failed(INFERD_ServerStop(server), "stopping the server");
  for (Frontend* frontend : {http.get(), grpc.get(), metrics.get()}) {
    if (frontend != nullptr) frontend->Stop();
  }
  watchdog.Disarm();
  close_frontends();
  INFERD_ServerDelete(server);
  SPDLOG_INFO("inferd exited");
  return clean ? 0 : 1;
}

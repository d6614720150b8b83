// The inferd binary: command-line flags (server_flags.h) -> an in-process
// server (server_from_flags.h) -> the HTTP, metrics and gRPC frontends
// (server_frontends.h); then waits for SIGINT or SIGTERM and shuts down
// gracefully.
#include <signal.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "cloud_flags.h"
#include "common/shared_memory_registry.h"
#include "exit_watchdog.h"
#include "inert_flags.h"
#include "inferd/server.h"
#include "server_flags.h"
#include "server_frontends.h"
#include "server_from_flags.h"

namespace {

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

// Reads the cloud environment and the command line into `flags` and checks
// them. The exit status when the process should end (--help printed, or
// what is wrong on stderr); nullopt to go on.
std::optional<int> ReadFlags(int argc, char** argv, inferd::Flags& flags) {
  // The cloud platforms' environment sets defaults; flags override them.
  if (!inferd::ReadCloudEnvironment(flags.cloud)) return 1;
  if (flags.cloud.vertex_ai_prediction_mode) {
    flags.allow_http = false;
    flags.allow_grpc = false;
  }
  if (std::optional<int> exit_status = inferd::ParseServerFlags(argc, argv, flags)) {
    return exit_status;
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
  return std::nullopt;
}

// Blocks SIGINT and SIGTERM, to be taken synchronously by sigwait; every
// thread started from here on inherits the blocked mask.
sigset_t BlockExitSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

// Waits for one of `signals`, then stops the server and the frontends within
// --exit-timeout-secs. True when the server stopped cleanly.
bool ServeUntilSignal(const sigset_t& signals, int exit_timeout_secs, INFERD_Server* server,
                      inferd::ServerFrontends& frontends) {
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  SPDLOG_INFO("received signal {}; waiting up to {}s for in-flight requests", signal_number,
              exit_timeout_secs);
  // The whole exit is bounded: past the timeout, what is still in flight
  // (an execution that does not end) gets an error and the process ends.
  inferd::ExitWatchdog watchdog(std::chrono::seconds(exit_timeout_secs), [&] {
    const std::string why = "the server is exiting: --exit-timeout-secs=" +
                            std::to_string(exit_timeout_secs) +
                            " ran out while the request was in flight";
    SPDLOG_WARN("exit timeout of {}s ran out with requests in flight; answering them with an "
                "error and exiting",
                exit_timeout_secs);
    frontends.AnswerInFlightAtExit(why);
    spdlog::default_logger()->flush();
    std::_Exit(1);  // threads still in a backend's execute are not joined
  });
  // Stop the server first (new requests are refused, in-flight ones finish and
  // are answered over the still-running frontends), then the frontends. The
  // frontend objects stay until the watchdog is disarmed: it may reach them.
  const bool clean = !inferd::Failed(INFERD_ServerStop(server), "stopping the server");
  frontends.Stop();
  watchdog.Disarm();
  return clean;
}

}  // namespace

int main(int argc, char** argv) {
  inferd::Flags flags;
  if (std::optional<int> exit_status = ReadFlags(argc, argv, flags)) return *exit_status;
  const sigset_t signals = BlockExitSignals();
  INFERD_Server* server = inferd::CreateServer(flags);
  if (server == nullptr) return 1;
  for (const std::string& flag : flags.inert_flags_given) {
    SPDLOG_WARN("{}", inferd::InertFlagNotice(flag));
  }
  // One set of regions for both protocols; it outlives the frontends and the
  // server.
  inferd::SharedMemoryRegistry shared_memory;
  bool started = false;
  bool clean = false;
  {
    // Closed before the server is deleted.
    inferd::ServerFrontends frontends(server, &shared_memory);
    started = frontends.Start(flags);
    if (started) clean = ServeUntilSignal(signals, flags.exit_timeout_secs, server, frontends);
  }
  INFERD_ServerDelete(server);
  if (!started) return 1;
  SPDLOG_INFO("inferd exited");
  return clean ? 0 : 1;
}

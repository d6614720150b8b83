// The inferd binary: command-line flags (server_flags.h) -> an in-process
// server (server_from_flags.h) -> the HTTP, metrics and gRPC frontends
// (ServerFrontends); then waits for SIGINT or SIGTERM and shuts down
// gracefully.
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "auth_file.h"
#include "cloud/sagemaker_frontend.h"
#include "cloud/vertex_ai_frontend.h"
#include "cloud_flags.h"
#include "common/frontend.h"
#include "common/shared_memory_registry.h"
#include "exit_watchdog.h"
#include "grpc_module_loader.h"
#include "http/http_server.h"
#include "http/openai/openai_metrics.h"
#include "https_module_loader.h"
#include "inert_flags.h"
#include "subcommand.h"
#include "inferd/server.h"
#include "lazy_grpc_frontend.h"
#include "server_flags.h"
#include "server_from_flags.h"

namespace inferd {
namespace {

// The frontends the flags turn on (HTTP, metrics, SageMaker, Vertex AI,
// gRPC) over one server. Here, not in a file of its own, so that the
// "Started <service>" lines name main.cc as Triton's do.
class ServerFrontends {
 public:
  // Neither is owned; both outlive this object. `shared_memory` holds the
  // regions of both protocols.
  ServerFrontends(INFERD_Server* server, SharedMemoryRegistry* shared_memory)
      : server_(server), shared_memory_(shared_memory) {}
  ~ServerFrontends() { Close(); }
  ServerFrontends(const ServerFrontends&) = delete;
  ServerFrontends& operator=(const ServerFrontends&) = delete;

  // Starts each frontend the flags turn on, each logging "Started <service>
  // at <address>:<port>": HTTP, metrics, SageMaker, Vertex AI, then gRPC
  // (HTTP already serves while gRPC's libraries load). False at the first
  // that cannot start, with why in the log.
  bool Start(const Flags& flags);

  // Frontend::BeginDrain on each started frontend.
  void BeginDrain(std::chrono::seconds bound);

  // Frontend::AnswerInFlightAtExit on each started frontend.
  void AnswerInFlightAtExit(const std::string& why);

  // Frontend::Stop on each started frontend.
  void Stop();

  // SIGHUP: the auth file and each frontend's files (TLS) are re-read soon.
  void ReloadFiles();

  // Deletes the frontends (their destructors stop them), the HTTP ones first
  // and metrics last, so metrics can be read to the end. Before the server
  // is deleted.
  void Close();

 private:
  // --auth-file: reads the API keys the frontends then check; false (logged)
  // when the file is malformed.
  bool OpenAuthFile(const Flags& flags);
  bool StartHttp(const Flags& flags);
  bool StartMetrics(const Flags& flags);
  bool StartCloud(const Flags& flags);
  bool StartGrpc(const Flags& flags);
  // The frontends in the order they stop, null where not started.
  std::vector<Frontend*> InStopOrder() const;

  INFERD_Server* const server_;
  SharedMemoryRegistry* const shared_memory_;
  // Recorded by the HTTP port's OpenAI API, read by the metrics port; outlives both.
  http::openai::OpenAiMetrics openai_metrics_;
  std::unique_ptr<AuthFile> auth_;  // --auth-file; null: no keys needed. Outlives the frontends.
  const auth::AccessControl* access_ = nullptr;  // auth_'s, for the frontends' options
  std::unique_ptr<Frontend> http_;
  std::unique_ptr<Frontend> sagemaker_;
  std::unique_ptr<Frontend> vertex_ai_;
  std::unique_ptr<Frontend> grpc_;
  std::unique_ptr<Frontend> metrics_;
};

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

bool ServerFrontends::Start(const Flags& flags) {
  return OpenAuthFile(flags) && (!flags.allow_http || StartHttp(flags)) &&
         (!flags.allow_metrics || StartMetrics(flags)) && StartCloud(flags) &&
         (!flags.allow_grpc || StartGrpc(flags));
}

bool ServerFrontends::OpenAuthFile(const Flags& flags) {
  if (flags.auth_file.empty()) return true;
  StatusOr<std::unique_ptr<AuthFile>> opened = AuthFile::Open(flags.auth_file);
  if (!opened.ok()) {
    SPDLOG_ERROR("--auth-file: {}", opened.status().message());
    return false;
  }
  auth_ = std::move(opened).value();
  access_ = &auth_->access();
  return true;
}

void ServerFrontends::ReloadFiles() {
  if (auth_ != nullptr) auth_->ReloadSoon();
  for (Frontend* frontend : InStopOrder()) {
    if (frontend != nullptr) frontend->ReloadFiles();
  }
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
  options.openai_api = flags.allow_openai;
  options.dashboard = flags.allow_dashboard;
  options.repository_api = flags.model_control_mode == "explicit";
  options.openai_timeout = std::chrono::seconds(flags.openai_timeout_secs);
  options.openai_metrics = &openai_metrics_;
  options.access = access_;
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
  options.openai_metrics = &openai_metrics_;
  options.access = access_;
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
  options.access = access_;
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

void ServerFrontends::BeginDrain(std::chrono::seconds bound) {
  for (Frontend* frontend : InStopOrder()) {
    if (frontend != nullptr) frontend->BeginDrain(bound);
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

}  // namespace
}  // namespace inferd

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
// thread started from here on inherits the blocked mask. SIGHUP too when
// there are files to re-read (--auth-file, TLS); else it keeps its default.
sigset_t BlockExitSignals(const inferd::Flags& flags) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  if (!flags.auth_file.empty() || flags.http_tls.enabled() || flags.grpc.use_ssl ||
      flags.grpc.use_mutual_ssl) {
    sigaddset(&signals, SIGHUP);
  }
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

// Waits until `deadline` for one of `signals`; true if one came.
bool SignalBefore(const sigset_t& signals, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    const auto left = deadline - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) return false;
    const auto left_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(left).count();
    const timespec timeout{.tv_sec = left_ns / 1'000'000'000, .tv_nsec = left_ns % 1'000'000'000};
    const int signal_number = sigtimedwait(&signals, nullptr, &timeout);
    if (signal_number == SIGHUP) continue;  // no reload while the exit is under way
    if (signal_number > 0) {
      SPDLOG_INFO("received signal {} during the grace period; stopping now", signal_number);
      return true;
    }
    if (errno != EINTR) return false;  // EAGAIN: the deadline passed
  }
}

// The last part of the grace period, after the frontends began their drain
// (gRPC's GOAWAY) and before the server refuses work: a call a client or a
// proxy sent before it saw the GOAWAY still arrives, and is served.
constexpr std::chrono::seconds kDrainHandover{1};

// The grace period after the first signal (--exit-grace-secs): the server
// reports not ready at once and serves as before, so that Kubernetes removes
// it from its Service endpoints (and load balancers from their pools) before
// it refuses work. Ends early at a second SIGINT/SIGTERM.
void ServeThroughGrace(const sigset_t& signals, const inferd::Flags& flags,
                       INFERD_Server* server, inferd::ServerFrontends& frontends) {
  inferd::Failed(INFERD_ServerBeginExit(server), "announcing the exit");
  const int grace_secs = inferd::ExitGraceSeconds(flags);
  if (grace_secs <= 0) return;
  SPDLOG_INFO("not ready; serving for {}s (--exit-grace-secs{}) before stopping; another "
              "SIGINT or SIGTERM stops now",
              grace_secs, flags.exit_grace_secs < 0 ? ": the default in a Kubernetes pod" : "");
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(grace_secs);
  if (SignalBefore(signals, end - kDrainHandover)) return;
  frontends.BeginDrain(std::chrono::seconds(flags.exit_timeout_secs) + kDrainHandover);
  if (SignalBefore(signals, end)) return;
  SPDLOG_INFO("the grace period of {}s is over; stopping", grace_secs);
}

// Waits for one of `signals`, serves through the grace period, then stops
// the server and the frontends within --exit-timeout-secs. True when the
// server stopped cleanly.
bool ServeUntilSignal(const sigset_t& signals, const inferd::Flags& flags, INFERD_Server* server,
                      inferd::ServerFrontends& frontends) {
  const int exit_timeout_secs = flags.exit_timeout_secs;
  int signal_number = 0;
  for (sigwait(&signals, &signal_number); signal_number == SIGHUP;
       sigwait(&signals, &signal_number)) {
    SPDLOG_INFO("received SIGHUP: re-reading the auth file and TLS certificates");
    frontends.ReloadFiles();
  }
  SPDLOG_INFO("received signal {}", signal_number);
  ServeThroughGrace(signals, flags, server, frontends);
  SPDLOG_INFO("waiting up to {}s for in-flight requests", exit_timeout_secs);
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
  // gRPC connections are told to go elsewhere (GOAWAY) before the server
  // refuses anything: a refusal travels in gRPC's trailers, which neither a
  // client nor a proxy retries, while a new connection refused is retried.
  frontends.BeginDrain(std::chrono::seconds(exit_timeout_secs));
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
  if (std::optional<int> exit_status = inferd::RunSubcommand(argc, argv)) return *exit_status;
  inferd::Flags flags;
  if (std::optional<int> exit_status = ReadFlags(argc, argv, flags)) return *exit_status;
  const sigset_t signals = BlockExitSignals(flags);
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
    if (started) clean = ServeUntilSignal(signals, flags, server, frontends);
  }
  INFERD_ServerDelete(server);
  if (!started) return 1;
  SPDLOG_INFO("inferd exited");
  return clean ? 0 : 1;
}

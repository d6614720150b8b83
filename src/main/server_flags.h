// The inferd binary's command-line flags (Triton's names); the server they
// describe is server_from_flags.h's. Used by main only.
#ifndef INFERD_SERVER_FLAGS_H_
#define INFERD_SERVER_FLAGS_H_

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cloud_flags.h"
#include "common/api_restrictions.h"
#include "grpc/grpc_server.h"
#include "http/tls_options.h"
#include "http/http_limits.h"

namespace inferd {

struct Flags {
  std::vector<std::string> model_repositories;
  // Local copies of s3:// gs:// as:// repositories' models ("": the default folder).
  std::string model_repository_cache_directory;
  uint64_t model_repository_cache_byte_size = 0;  // 0: no limit
  std::string backend_directory;
  std::vector<std::string> backend_configs;
  bool allow_http = true;
  std::string http_address = "0.0.0.0";
  int http_port = 8000;
  int http_thread_count = 0;
  bool reuse_http_port = false;
  std::string http_header_forward_pattern;
  ApiRestrictions http_restrictions;  // --http-restricted-api
  bool allow_openai = true;           // --allow-openai: the /v1 routes on the HTTP port
  bool allow_dashboard = true;        // --allow-dashboard: /dashboard on the HTTP port
  int openai_timeout_secs = 0;        // --openai-timeout-secs; 0: no limit
  http::HttpTlsOptions http_tls;      // --http-use-ssl and friends (beyond Triton)
  std::string auth_file;              // --auth-file: API keys (docs/security.md); empty: none
  // --http-max-input-size and the other HTTP limits (docs/limits.md).
  http::HttpLimits http_limits;
  uint64_t model_max_inflight_requests = 1024;  // --model-max-inflight-requests; 0: none
  bool admission_control = false;           // --admission-control
  uint64_t admission_queue_target_ms = 0;   // --admission-queue-target-ms; 0: none
  uint64_t max_inflight_requests = 0;       // --max-inflight-requests; 0: none
  uint64_t max_queued_requests = 0;         // --max-queued-requests; 0: none
  std::string model_memory_budget;             // --model-memory-budget; empty: none
  uint64_t model_load_wait_timeout_ms = 60'000;  // --model-load-wait-timeout-ms
  std::vector<std::string> model_memory_pins;   // --model-memory-pin
  int log_verbose = 0;
  bool log_info = true;
  bool log_warning = true;
  bool log_error = true;
  std::string log_file;
  std::string log_format = "default";
  int exit_timeout_secs = 30;
  // After SIGINT/SIGTERM, seconds of serving while not ready before the stop
  // (inferd's own; 0: stop at once, as Triton). Unset (-1): ExitGraceSeconds.
  int exit_grace_secs = -1;
  // Auto-completion is off with --disable-auto-complete-config or with the
  // deprecated --strict-model-config=true (Triton: the former wins).
  bool disable_auto_complete_config = false;
  bool strict_model_config = false;
  bool strict_model_config_given = false;
  bool strict_readiness = true;
  bool exit_on_error = true;
  std::string model_control_mode = "none";
  std::vector<std::string> load_models;
  int repository_poll_secs = 15;
  int model_load_thread_count = 4;
  bool model_namespacing = false;
  int model_load_retry_count = 0;
  std::string model_config_name;
  int buffer_manager_thread_count = 0;
  std::string model_transition_policy = "availability";
  std::string rate_limit = "off";
  std::vector<std::string> host_policies;  // <name>,<setting>=<value>
  std::vector<std::string> rate_limit_resources;  // <name>:<count>[:<device>]
  std::string id = "triton";
  bool allow_metrics = true;
  bool allow_cpu_metrics = true;
  uint64_t metrics_interval_ms = 2000;
  std::vector<std::string> metrics_configs;  // <setting>=<value>
  // The response cache: --cache-config entries (<cache>,<setting>=<value>),
  // the deprecated --response-cache-byte-size, and --cache-directory
  // (accepted; only the built-in local cache exists).
  std::vector<std::string> cache_configs;
  int64_t response_cache_byte_size = -1;  // -1: not given
  std::string cache_directory = "/opt/tritonserver/caches";
  std::string metrics_address = "0.0.0.0";
  int metrics_port = 8002;
  bool allow_grpc = true;
  // --grpc-load-on-first-connection: load the gRPC module when the first
  // client connects (lazy_grpc_frontend.h) where the settings allow it.
  bool grpc_load_on_first_connection = true;
  grpc_frontend::GrpcOptions grpc;
  // Tracing: --trace-config entries, then the older single-setting flags as
  // (setting, value) pairs.
  std::vector<std::string> trace_configs;
  std::vector<std::pair<std::string, std::string>> trace_flags;
  CloudFlags cloud;  // SageMaker and Vertex AI
  // Triton flags given that have no effect on this build (inert_flags.h),
  // each once, logged when the server's log is set up.
  std::vector<std::string> inert_flags_given;
};

// Declares every flag on `app`, to be parsed into `flags`.
void AddServerFlags(CLI::App& app, Flags& flags);

// Parses the command line into `flags` (which hold the defaults). The exit
// status when the process should end (--help printed, or a bad flag
// explained on stderr); nullopt to go on.
std::optional<int> ParseServerFlags(int argc, char** argv, Flags& flags);

// Checks what the parser cannot: the header forward patterns are regular
// expressions. False (with the reason on stderr, naming the flag) when not.
bool CheckFrontendFlags(const Flags& flags);

// The grace period in a Kubernetes pod when --exit-grace-secs is not given:
// a few seconds more than endpoint removal usually lags a pod's readiness.
inline constexpr int kKubernetesExitGraceSecs = 5;
// --exit-grace-secs as given, else its default: kKubernetesExitGraceSecs in a
// Kubernetes pod (every container there has KUBERNETES_SERVICE_HOST set), 0
// elsewhere, as Triton, so that Ctrl-C and scripts stop at once.
int ExitGraceSeconds(const Flags& flags);

// Warnings the flags call for (deprecated flags), each one line for the log.
std::vector<std::string> FlagWarnings(const Flags& flags);

}  // namespace inferd

#endif  // INFERD_SERVER_FLAGS_H_

// Everything a server is created with; the struct behind INFERD_ServerOptions.
#ifndef INFERD_CORE_SERVER_SERVER_OPTIONS_H_
#define INFERD_CORE_SERVER_SERVER_OPTIONS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/common/logging.h"
#include "core/lifecycle/control_mode.h"
#include "core/model/admission.h"
#include "core/model/host_policy.h"
#include "core/rate_limiter/rate_limiter.h"
#include "core/stats/metrics_config.h"
#include "core/trace/trace_settings.h"

namespace inferd {

// The default of --model-max-inflight-requests: far above what a model
// instance serves at once, low enough that an overload is refused before
// the queued requests' memory grows without bound.
inline constexpr uint64_t kDefaultMaxInflightRequests = 1024;

struct ServerOptions {
  std::string server_id = "triton";  // --id, Triton's default
  std::vector<std::string> repository_paths;
  // Local copies of object store repositories' models (repository_source.h):
  // where ("": the default) and how many bytes at most (0: no limit).
  std::string model_cache_directory;
  uint64_t model_cache_bytes = 0;
  std::string backend_directory;
  // backend name -> setting -> value (--backend-config)
  std::map<std::string, std::map<std::string, std::string>> backend_settings;
  uint32_t exit_timeout_secs = 30;
  // True: configs must be whole (--disable-auto-complete-config); false
  // (Triton's default): backends may complete them.
  bool strict_model_config = false;
  // Fail INFERD_ServerNew when a model fails to load at startup (--exit-on-error).
  bool exit_on_error = true;
  // "<model folder>/configs/<name>.pbtxt" replaces config.pbtxt where it
  // exists (--model-config-name); empty: config.pbtxt.
  std::string model_config_name;
  // Further attempts at a model version whose load failed (--model-load-retry-count).
  uint32_t model_load_retries = 0;
  // Ready only when every model that should load is READY (Triton's default).
  bool strict_readiness = true;
  int model_load_threads = 4;
  // Each repository is a namespace (--model-namespacing).
  bool model_namespacing = false;
  // Threads that split backends' large copies (--buffer-manager-thread-count).
  uint32_t buffer_manager_threads = 0;
  ModelControlMode control_mode = ModelControlMode::kNone;
  TransitionPolicy transition_policy = TransitionPolicy::kAvailabilityPreserving;
  std::vector<std::string> startup_models;  // EXPLICIT mode's --load-model
  uint32_t repository_poll_secs = 15;
  LogSettings log;
  // --allow-metrics, --allow-cpu-metrics, --metrics-interval-ms, --metrics-config.
  MetricsConfig metrics;
  // The response cache (--cache-config local,size=N, --response-cache-byte-size):
  // enabled with a budget of `response_cache_bytes`. Models opt in with
  // response_cache { enable: true }.
  bool response_cache = false;
  uint64_t response_cache_bytes = 0;
  // --host-policy, by policy name.
  HostPolicies host_policies;
  // --rate-limit=execution_count (true) or off (false, Triton's default).
  bool rate_limit = false;
  // --rate-limit-resource, in the order given.
  std::vector<ResourceOverride> rate_limit_resources;
  // Client requests one model may have in flight before more are refused with
  // UNAVAILABLE (--model-max-inflight-requests); 0: no cap.
  uint64_t max_inflight_requests_per_model = kDefaultMaxInflightRequests;
  // Admission control: --admission-control, --admission-queue-target-ms,
  // --max-inflight-requests, --max-queued-requests.
  AdmissionOptions admission;
  // --model-memory-budget: bytes the loaded models may hold; models load on
  // their first request and the least recently used idle ones make room
  // (docs/memory-budget.md). 0: off, every model loads as the control mode says.
  uint64_t model_memory_budget_bytes = 0;
  // How long a request waits for its model's on-demand load (--model-load-wait-timeout-ms).
  uint64_t model_load_wait_timeout_ms = 60'000;
  // Models never evicted, loaded at start (--model-memory-pin).
  std::vector<std::string> pinned_models;
  // The global trace setting at startup (--trace-config).
  TraceSettings trace;
};

}  // namespace inferd

#endif  // INFERD_CORE_SERVER_SERVER_OPTIONS_H_

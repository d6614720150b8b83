// Admission control (docs/admission-control.md): whether a client's request
// may join a model's queue. Caps on what is queued and in flight, per model
// (max_queue_size for every scheduler, an in-flight cap) and for the whole
// server (--max-inflight-requests, --max-queued-requests), and shedding by
// expected queue time (queue_time_estimator.h) against the request's timeout
// or a target (--admission-queue-target-ms). The decision is a pure function
// of the limits and a snapshot of the load, so its tests need no server;
// ModelVersion::AdmitClient takes the snapshot with atomics, no lock.
#ifndef INFERD_CORE_MODEL_ADMISSION_H_
#define INFERD_CORE_MODEL_ADMISSION_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "core/stats/admission_rejections.h"
#include "inferd/base/status.h"
#include "model_config.pb.h"

namespace inferd {

// The server's settings, from its flags.
struct AdmissionOptions {
  bool enabled = false;          // --admission-control: shed, answer 429
  uint64_t queue_target_ms = 0;  // --admission-queue-target-ms; 0: none (>0 enables)
  uint64_t max_inflight = 0;     // --max-inflight-requests; 0: no cap
  uint64_t max_queued = 0;       // --max-queued-requests; 0: no cap
};

// The server's settings and its counts of client requests, shared by every
// model version (and by the requests counted, which may outlive the server).
struct ServerAdmission {
  explicit ServerAdmission(AdmissionOptions o) : options(o) {}
  const AdmissionOptions options;
  std::atomic<int64_t> inflight{0};
  std::atomic<int64_t> queued{0};
};

// One model version's limits: the server's, with its config's own.
struct AdmissionLimits {
  uint64_t model_max_inflight = 0;  // 0: no cap
  bool model_inflight_from_config = false;  // inferd.max_inflight_requests, not the flag
  uint64_t model_max_queued = 0;    // inferd.max_queue_size; 0: no cap
  uint64_t server_max_inflight = 0;
  uint64_t server_max_queued = 0;
  uint64_t queue_target_ns = 0;  // 0: no target
  // Admission control is on for the model: requests are shed by expected
  // queue time and every refusal is RESOURCE_EXHAUSTED with retry advice.
  bool shed = false;
};

// The config parameters that set a model's limits.
inline constexpr char kMaxQueueSizeParameter[] = "inferd.max_queue_size";
inline constexpr char kMaxInflightParameter[] = "inferd.max_inflight_requests";
inline constexpr char kQueueTargetParameter[] = "inferd.admission_queue_target_ms";
inline constexpr char kAdmissionControlParameter[] = "inferd.admission_control";

// The limits of `model` with `config`: `server`'s, `flag_inflight` (the
// --model-max-inflight-requests cap as inflight_limit.h applies it) unless
// the config's parameters say otherwise. INVALID_ARG naming the model and
// parameter for a value that is not a number (or true/false).
StatusOr<AdmissionLimits> AdmissionLimitsFor(const AdmissionOptions& server,
                                             uint64_t flag_inflight,
                                             const inference::ModelConfig& config,
                                             const std::string& model);

// How long the request may wait in the queue (0: no limit): the dynamic
// batcher's queue policy for its priority, with the request's `timeout`
// where the policy lets it shorten it; the request's own for other schedulers.
uint64_t QueueTimeoutNs(const inference::ModelConfig& config, uint32_t priority,
                        uint64_t request_timeout_us);

// What was counted before the request (it is not included) and what it expects.
struct AdmissionLoad {
  uint64_t model_inflight = 0;
  uint64_t model_queued = 0;
  uint64_t server_inflight = 0;
  uint64_t server_queued = 0;
  uint64_t expected_queue_ns = 0;  // the estimate for this request
  uint64_t timeout_ns = 0;         // QueueTimeoutNs; 0: none
  // The request continues a live sequence: never refused (a sequence once
  // started is served to its end), only counted.
  bool continues_sequence = false;
};

struct AdmissionVerdict {
  std::optional<RejectReason> reject;  // empty: admitted
  uint64_t retry_after_ms = 0;
  uint64_t limit = 0;     // the cap (a count) or the time (ns) exceeded
  uint64_t observed = 0;  // the count or expected time that exceeded it
};

AdmissionVerdict DecideAdmission(const AdmissionLimits& limits, const AdmissionLoad& load);

// The status a refusal answers with: RESOURCE_EXHAUSTED with retry advice
// when admission control is on for the model or a server-wide cap refused;
// otherwise UNAVAILABLE, as Triton answers a full queue.
Status RejectionStatus(const std::string& model, const AdmissionLimits& limits,
                       const AdmissionVerdict& verdict);

}  // namespace inferd

#endif  // INFERD_CORE_MODEL_ADMISSION_H_

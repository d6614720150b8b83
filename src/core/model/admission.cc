#include "core/model/admission.h"

#include <algorithm>
#include <charconv>

namespace inferd {
namespace {

constexpr uint64_t kMinRetryMs = 1000;        // Retry-After counts whole seconds
constexpr uint64_t kMaxRetryMs = 3600 * 1000;  // advice beyond an hour means nothing

// The parameter's value as a whole number; nullopt when the config has none.
StatusOr<std::optional<uint64_t>> NumberParameter(const inference::ModelConfig& config,
                                                  const char* key, const std::string& model) {
  const auto found = config.parameters().find(key);
  if (found == config.parameters().end()) return std::optional<uint64_t>();
  const std::string& text = found->second.string_value();
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return Status::InvalidArg("model '" + model + "': parameter '" + key +
                              "' must be a whole number (0: none), got '" + text + "'");
  }
  return std::optional<uint64_t>(value);
}

StatusOr<std::optional<bool>> BoolParameter(const inference::ModelConfig& config, const char* key,
                                             const std::string& model) {
  const auto found = config.parameters().find(key);
  if (found == config.parameters().end()) return std::optional<bool>();
  const std::string& text = found->second.string_value();
  if (text == "true") return std::optional<bool>(true);
  if (text == "false") return std::optional<bool>(false);
  return Status::InvalidArg("model '" + model + "': parameter '" + key +
                            "' must be true or false, got '" + text + "'");
}

// Drain time of one queued request, from the estimate for the queue ahead.
uint64_t PerRequestNs(const AdmissionLoad& load) {
  return load.model_queued > 0 ? load.expected_queue_ns / load.model_queued
                               : load.expected_queue_ns;
}

AdmissionVerdict Refuse(RejectReason reason, uint64_t limit, uint64_t observed, uint64_t wait_ns) {
  const uint64_t ms = std::clamp<uint64_t>((wait_ns + 999'999) / 1'000'000, kMinRetryMs,
                                           kMaxRetryMs);
  return AdmissionVerdict{reason, ms, limit, observed};
}

// A count cap: refused when `count` (before the request) reaches `cap`; the
// advice is the time for the excess to drain.
std::optional<AdmissionVerdict> CheckCap(RejectReason reason, uint64_t cap, uint64_t count,
                                         const AdmissionLoad& load) {
  if (cap == 0 || count < cap) return std::nullopt;
  return Refuse(reason, cap, count, PerRequestNs(load) * (count - cap + 1));
}

}  // namespace

StatusOr<AdmissionLimits> AdmissionLimitsFor(const AdmissionOptions& server,
                                             uint64_t flag_inflight,
                                             const inference::ModelConfig& config,
                                             const std::string& model) {
  AdmissionLimits limits;
  limits.server_max_inflight = server.max_inflight;
  limits.server_max_queued = server.max_queued;
  ASSIGN_OR_RETURN(std::optional<uint64_t> queued,
                   NumberParameter(config, kMaxQueueSizeParameter, model));
  ASSIGN_OR_RETURN(std::optional<uint64_t> inflight,
                   NumberParameter(config, kMaxInflightParameter, model));
  ASSIGN_OR_RETURN(std::optional<uint64_t> target_ms,
                   NumberParameter(config, kQueueTargetParameter, model));
  ASSIGN_OR_RETURN(std::optional<bool> enabled,
                   BoolParameter(config, kAdmissionControlParameter, model));
  limits.model_max_queued = queued.value_or(0);
  limits.model_max_inflight = inflight.value_or(flag_inflight);
  limits.model_inflight_from_config = inflight.has_value();
  const uint64_t target = target_ms.value_or(server.queue_target_ms);
  limits.queue_target_ns = target * 1'000'000;
  limits.shed = enabled.value_or(server.enabled || target > 0);
  if (!limits.shed) limits.queue_target_ns = 0;
  return limits;
}

uint64_t QueueTimeoutNs(const inference::ModelConfig& config, uint32_t priority,
                        uint64_t request_timeout_us) {
  if (!config.has_dynamic_batching()) return request_timeout_us * 1000;
  const inference::ModelDynamicBatching& batching = config.dynamic_batching();
  const uint64_t levels = std::max<uint64_t>(1, batching.priority_levels());
  uint64_t level = priority;
  if (level == 0 || level > levels) level = std::max<uint64_t>(1, batching.default_priority_level());
  const auto found = batching.priority_queue_policy().find(level);
  const inference::ModelQueuePolicy& policy = found != batching.priority_queue_policy().end()
                                                  ? found->second
                                                  : batching.default_queue_policy();
  uint64_t timeout_us = policy.default_timeout_microseconds();
  if (policy.allow_timeout_override() && request_timeout_us > 0 &&
      (timeout_us == 0 || request_timeout_us < timeout_us)) {
    timeout_us = request_timeout_us;
  }
  return timeout_us * 1000;
}

AdmissionVerdict DecideAdmission(const AdmissionLimits& limits, const AdmissionLoad& load) {
  if (load.continues_sequence) return AdmissionVerdict{};
  for (const auto& verdict :
       {CheckCap(RejectReason::kServerInflight, limits.server_max_inflight, load.server_inflight,
                 load),
        CheckCap(RejectReason::kServerQueued, limits.server_max_queued, load.server_queued, load),
        CheckCap(RejectReason::kModelInflight, limits.model_max_inflight, load.model_inflight,
                 load),
        CheckCap(RejectReason::kQueueFull, limits.model_max_queued, load.model_queued, load)}) {
    if (verdict) return *verdict;
  }
  if (!limits.shed) return AdmissionVerdict{};
  // The tighter of the two bounds decides, and names itself.
  const bool by_timeout = load.timeout_ns > 0 &&
                          (limits.queue_target_ns == 0 || load.timeout_ns < limits.queue_target_ns);
  const uint64_t bound = by_timeout ? load.timeout_ns : limits.queue_target_ns;
  if (bound == 0 || load.expected_queue_ns <= bound) return AdmissionVerdict{};
  return Refuse(by_timeout ? RejectReason::kTimeout : RejectReason::kQueueTarget, bound,
                load.expected_queue_ns, load.expected_queue_ns - bound);
}

namespace {

std::string Ms(uint64_t ns) { return std::to_string((ns + 999'999) / 1'000'000) + " ms"; }

std::string Explain(const AdmissionLimits& limits, const AdmissionVerdict& v) {
  const std::string count = std::to_string(v.observed);
  const std::string cap = std::to_string(v.limit);
  switch (*v.reject) {
    case RejectReason::kQueueFull:
      return "its queue is full: " + count + " requests queued, the most " +
             kMaxQueueSizeParameter + "=" + cap + " allows";
    case RejectReason::kModelInflight:
      return "it already has " + count + " requests in flight, the most " +
             (limits.model_inflight_from_config ? std::string(kMaxInflightParameter)
                                                : std::string("--model-max-inflight-requests")) +
             "=" + cap + " allows";
    case RejectReason::kServerInflight:
      return "the server already has " + count +
             " requests in flight, the most --max-inflight-requests=" + cap + " allows";
    case RejectReason::kServerQueued:
      return "the server already has " + count +
             " requests queued, the most --max-queued-requests=" + cap + " allows";
    case RejectReason::kQueueTarget:
      return "its expected queue time, " + Ms(v.observed) + ", exceeds the admission target of " +
             Ms(v.limit);
    case RejectReason::kTimeout:
      return "its expected queue time, " + Ms(v.observed) + ", exceeds the request's timeout of " +
             Ms(v.limit);
  }
  return "it is overloaded";
}

}  // namespace

Status RejectionStatus(const std::string& model, const AdmissionLimits& limits,
                       const AdmissionVerdict& verdict) {
  const std::string why = "model '" + model + "' is overloaded: " + Explain(limits, verdict);
  const bool server_cap = *verdict.reject == RejectReason::kServerInflight ||
                          *verdict.reject == RejectReason::kServerQueued;
  if (limits.shed || server_cap) {
    return Status::ResourceExhausted(
        why + "; retry after " + std::to_string((verdict.retry_after_ms + 999) / 1000) + " s",
        verdict.retry_after_ms);
  }
  return Status::Unavailable(why + "; retry later");
}

}  // namespace inferd

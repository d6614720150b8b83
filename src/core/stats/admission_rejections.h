// Why admission control refused a client's request, and how many times it
// did per model version: the `inferd_admission_rejected_total` metric
// (docs/admission-control.md). Relaxed atomics, one increment per refusal.
#ifndef INFERD_CORE_STATS_ADMISSION_REJECTIONS_H_
#define INFERD_CORE_STATS_ADMISSION_REJECTIONS_H_

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace inferd {

enum class RejectReason : uint8_t {
  kQueueFull,       // the model's max_queue_size (any scheduler's)
  kModelInflight,   // the model's in-flight cap
  kServerInflight,  // --max-inflight-requests
  kServerQueued,    // --max-queued-requests
  kQueueTarget,     // expected queue time above the admission target
  kTimeout,         // expected queue time above the request's timeout
};
inline constexpr size_t kRejectReasons = 6;

// The metric's `reason` label: "queue_full", "model_inflight", ...
inline const char* RejectReasonName(RejectReason reason) {
  static constexpr const char* kNames[kRejectReasons] = {
      "queue_full", "model_inflight", "server_inflight", "server_queued", "queue_target",
      "timeout"};
  return kNames[static_cast<size_t>(reason)];
}

class AdmissionRejections {
 public:
  void Count(RejectReason reason) {
    counts_[static_cast<size_t>(reason)].fetch_add(1, std::memory_order_relaxed);
  }
  uint64_t Read(RejectReason reason) const {
    return counts_[static_cast<size_t>(reason)].load(std::memory_order_relaxed);
  }

 private:
  std::array<std::atomic<uint64_t>, kRejectReasons> counts_{};
};

}  // namespace inferd

#endif  // INFERD_CORE_STATS_ADMISSION_REJECTIONS_H_

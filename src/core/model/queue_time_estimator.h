// How long a request arriving now would wait in a model's queue, from what
// its instances recently did: a moving average (EWMA, weight 1/8) of the time
// one execution takes and of the requests it serves, and the requests queued
// ahead. Executing instances report each batch (Observe); admission asks
// (ExpectedQueueNs). Relaxed atomics: concurrent reports may lose one
// another's update, which an average shrugs off; no lock on either path.
#ifndef INFERD_CORE_MODEL_QUEUE_TIME_ESTIMATOR_H_
#define INFERD_CORE_MODEL_QUEUE_TIME_ESTIMATOR_H_

#include <atomic>
#include <cstdint>

namespace inferd {

class QueueTimeEstimator {
 public:
  // One execution of `requests` requests took `execution_ns`.
  void Observe(uint64_t requests, uint64_t execution_ns) {
    if (requests == 0) return;
    const uint64_t size_milli = requests * kMilli;
    const uint64_t old_ns = batch_ns_.load(std::memory_order_relaxed);
    const uint64_t old_size = batch_milli_.load(std::memory_order_relaxed);
    // The first report is taken whole: no zero to average away.
    batch_ns_.store(old_ns == 0 ? execution_ns : Blend(old_ns, execution_ns),
                    std::memory_order_relaxed);
    batch_milli_.store(old_size == 0 ? size_milli : Blend(old_size, size_milli),
                       std::memory_order_relaxed);
  }

  // The wait of a request with `queued_ahead` requests before it, served by
  // `instances` instances: queued × batch time ÷ (instances × batch size).
  // 0 before any execution was reported, or without instances (an ensemble).
  uint64_t ExpectedQueueNs(uint64_t queued_ahead, uint64_t instances) const {
    const uint64_t batch_ns = batch_ns_.load(std::memory_order_relaxed);
    const uint64_t size_milli = batch_milli_.load(std::memory_order_relaxed);
    if (batch_ns == 0 || size_milli == 0 || instances == 0) return 0;
    const double per_request_ns = static_cast<double>(batch_ns) * kMilli /
                                  (static_cast<double>(size_milli) * static_cast<double>(instances));
    return static_cast<uint64_t>(per_request_ns * static_cast<double>(queued_ahead));
  }

  uint64_t batch_ns() const { return batch_ns_.load(std::memory_order_relaxed); }

 private:
  static constexpr uint64_t kMilli = 1000;  // batch sizes in thousandths
  static uint64_t Blend(uint64_t old_value, uint64_t sample) {
    return old_value - old_value / 8 + sample / 8;
  }

  std::atomic<uint64_t> batch_ns_{0};     // execution time
  std::atomic<uint64_t> batch_milli_{0};  // requests per execution, ×1000
};

}  // namespace inferd

#endif  // INFERD_CORE_MODEL_QUEUE_TIME_ESTIMATOR_H_

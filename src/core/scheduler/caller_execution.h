// Executing a request on the thread that submitted it. For a model whose
// executions take microseconds, handing each request to an instance thread
// costs more than the execution: a wake-up there, and the response's way back.
// So the default scheduler lets the submitting thread (a frontend's, for a
// client's unary call) execute on an idle instance itself, when the request
// allows it, the instance's backend allows it, and the model's recent
// executions were short. Otherwise requests wait for instance threads as ever.
#ifndef INFERD_CORE_SCHEDULER_CALLER_EXECUTION_H_
#define INFERD_CORE_SCHEDULER_CALLER_EXECUTION_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace inferd {

class InferenceRequest;

// What a scheduler needs to execute on an instance from another thread; the
// model version implements it. Instances are named by index, as in BatchSource.
class CallerExecutor {
 public:
  virtual ~CallerExecutor() = default;
  // Whether instance `instance` may execute on a thread other than its own
  // (its backend allows it; no rate limiter ticket or host policy binds it).
  // Constant once scheduling starts.
  virtual bool MayExecuteOnCaller(size_t instance) const = 0;
  // Executes `batch` on instance `instance`, on the calling thread. The
  // scheduler guarantees no other execution of that instance meanwhile.
  virtual void ExecuteOnCaller(size_t instance, std::vector<InferenceRequest*>& batch) = 0;
};

// A moving average of a model's execution times, and whether they are short
// enough to run on callers' threads. Lock-free; concurrent records may lose
// one another's update, which an average shrugs off.
class RecentExecutionTime {
 public:
  // An execution up to this long may hold a frontend's thread: the hand-over
  // it saves costs tens of microseconds, and a frontend thread held for a
  // tenth of a millisecond delays its other connections no more than that.
  static constexpr uint64_t kShortNs = 100'000;
  // Executions measured (on instance threads) before any runs on a caller's.
  static constexpr uint32_t kSamplesBeforeTrust = 8;

  void Record(uint64_t ns) {
    const uint32_t samples = samples_.load(std::memory_order_relaxed);
    const uint64_t average = average_ns_.load(std::memory_order_relaxed);
    // Weight 1/8: a model that turns slow stops running on callers within a
    // few executions.
    const uint64_t next = samples == 0 ? ns : average - average / 8 + ns / 8;
    average_ns_.store(next, std::memory_order_relaxed);
    if (samples < kSamplesBeforeTrust) samples_.store(samples + 1, std::memory_order_relaxed);
  }
  bool Short() const {
    return samples_.load(std::memory_order_relaxed) >= kSamplesBeforeTrust &&
           average_ns_.load(std::memory_order_relaxed) <= kShortNs;
  }
  uint64_t average_ns() const { return average_ns_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> average_ns_{0};
  std::atomic<uint32_t> samples_{0};
};

}  // namespace inferd

#endif  // INFERD_CORE_SCHEDULER_CALLER_EXECUTION_H_

// The compute time of one ensemble request's steps, summed (Triton's
// secondary statistics aggregator: an ensemble's compute_input, _infer and
// _output are its steps'). Each execution that ran one of its step requests
// adds that execution's durations once its backend returned; the ensemble's
// record is made with the sums when the last holder lets go (the run, its step
// requests, the executions running them), so a step whose request was released
// before its execution was timed still counts. Relaxed atomics; thread-safe.
#ifndef INFERD_CORE_STATS_COMPUTE_TALLY_H_
#define INFERD_CORE_STATS_COMPUTE_TALLY_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <utility>

namespace inferd {

class ComputeTally {
 public:
  using Finish = std::function<void(uint64_t input_ns, uint64_t infer_ns, uint64_t output_ns)>;

  ComputeTally() = default;
  ComputeTally(const ComputeTally&) = delete;
  ComputeTally& operator=(const ComputeTally&) = delete;
  ~ComputeTally() {
    if (finish_) {
      finish_(input_ns_.load(std::memory_order_relaxed), infer_ns_.load(std::memory_order_relaxed),
              output_ns_.load(std::memory_order_relaxed));
    }
  }

  void Add(uint64_t input_ns, uint64_t infer_ns, uint64_t output_ns) {
    input_ns_.fetch_add(input_ns, std::memory_order_relaxed);
    infer_ns_.fetch_add(infer_ns, std::memory_order_relaxed);
    output_ns_.fetch_add(output_ns, std::memory_order_relaxed);
  }
  // What the last holder does with the sums; set once, by the owner, before
  // it lets go (the shared_ptr's count orders it before the destructor).
  // Unset: the sums are dropped (a request that failed).
  void OnFinish(Finish finish) { finish_ = std::move(finish); }

 private:
  std::atomic<uint64_t> input_ns_{0};
  std::atomic<uint64_t> infer_ns_{0};
  std::atomic<uint64_t> output_ns_{0};
  Finish finish_;
};

}  // namespace inferd

#endif  // INFERD_CORE_STATS_COMPUTE_TALLY_H_

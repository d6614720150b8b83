// Latency statistics of one load step: a thread-safe recorder that collects
// each request's latency inside the measurement window, and the pure functions
// that turn the latencies into percentiles, mean and throughput.
#ifndef INFERD_TOOLS_LOADGEN_LATENCY_STATS_H_
#define INFERD_TOOLS_LOADGEN_LATENCY_STATS_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "inferd/base/mutex.h"
#include "inferd/base/thread_annotations.h"

namespace inferd::loadgen {

// What one step measured. Latencies are in nanoseconds.
struct LatencySummary {
  uint64_t requests = 0;    // successful requests completed in the window
  uint64_t errors = 0;      // failed requests completed in the window
  double seconds = 0;       // length of the window
  double requests_per_second = 0;
  int64_t mean_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  int64_t p50_ns = 0;
  int64_t p90_ns = 0;
  int64_t p95_ns = 0;
  int64_t p99_ns = 0;
  std::string first_error;  // the first failure's message, "" when none
};

// The nearest-rank percentile `p` (0 < p <= 100) of `sorted` (ascending):
// the smallest value with at least p% of the values at or below it. 0 when
// `sorted` is empty.
int64_t Percentile(const std::vector<int64_t>& sorted, double p);

// Summarizes `latencies_ns` (any order; sorted in place) of the successful
// requests, `errors` failures and a window of `seconds`.
LatencySummary Summarize(std::vector<int64_t>& latencies_ns, uint64_t errors, double seconds);

// Collects completions from many threads. Only completions between
// StartWindow and EndWindow are kept; the running totals count every
// completion, for the progress line. Thread-safe.
class LatencyRecorder {
 public:
  LatencyRecorder() = default;
  LatencyRecorder(const LatencyRecorder&) = delete;
  LatencyRecorder& operator=(const LatencyRecorder&) = delete;

  // Records one completion: a success with its latency, or a failure with its message.
  void RecordSuccess(int64_t latency_ns) EXCLUDES(mu_);
  void RecordError(std::string_view message) EXCLUDES(mu_);

  // Opens the measurement window, dropping anything kept before.
  void StartWindow() EXCLUDES(mu_);
  // Closes the window and summarizes it; `seconds` is its length.
  LatencySummary EndWindow(double seconds) EXCLUDES(mu_);

  // Completions since construction, successful and failed.
  uint64_t total_successes() const { return total_successes_.load(std::memory_order_relaxed); }
  uint64_t total_errors() const { return total_errors_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> total_successes_{0};
  std::atomic<uint64_t> total_errors_{0};

  Mutex mu_;
  bool recording_ GUARDED_BY(mu_) = false;  // inside the window
  std::vector<int64_t> latencies_ GUARDED_BY(mu_);
  uint64_t errors_ GUARDED_BY(mu_) = 0;
  std::string first_error_ GUARDED_BY(mu_);
};

}  // namespace inferd::loadgen

#endif  // INFERD_TOOLS_LOADGEN_LATENCY_STATS_H_

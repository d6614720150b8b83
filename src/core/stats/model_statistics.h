// Counters and durations of one loaded model version: what the statistics
// extension and the Prometheus metrics report. Updated with relaxed atomics on
// the request path (no lock); read as a consistent-enough snapshot. Thread-safe.
#ifndef INFERD_CORE_STATS_MODEL_STATISTICS_H_
#define INFERD_CORE_STATS_MODEL_STATISTICS_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/stats/duration_stat.h"
#include "core/stats/response_statistics.h"

namespace inferd {

// Durations of the executions that ran with one batch size.
struct BatchStat {
  DurationStat compute_input;
  DurationStat compute_infer;
  DurationStat compute_output;
};

// Upper bounds (seconds) of the request-latency histogram buckets.
inline constexpr std::array<double, 14> kLatencyBucketsSeconds = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
    0.025,  0.05,    0.1,    0.25,  0.5,    1.0,   2.5};

class ModelStatistics {
 public:
  // Batch sizes 1..max_batch_size get their own counters (1 when not batching).
  explicit ModelStatistics(int64_t max_batch_size);

  // A request got its final response `duration_ns` after it was queued.
  void RecordRequest(bool success, uint64_t duration_ns);
  // A request waited `queue_ns` before it was handed to an instance.
  void RecordQueue(uint64_t queue_ns) { queue.Add(queue_ns); }
  // One backend execution of `request_count` requests with `rows` rows in
  // all is starting: counted now, so a client that got its response sees it.
  void RecordExecutionStart(uint64_t request_count, uint64_t rows, uint64_t wall_ms);
  // ... and it took `input_ns` to prepare inputs, `infer_ns` to compute and
  // `output_ns` to deliver outputs (each request counts each time once).
  void RecordExecutionTime(uint64_t request_count, uint64_t rows, uint64_t input_ns,
                           uint64_t infer_ns, uint64_t output_ns);

  DurationStat success, fail, queue, compute_input, compute_infer, compute_output;
  std::atomic<uint64_t> inference_count{0};  // rows that ran
  std::atomic<uint64_t> execution_count{0};
  std::atomic<uint64_t> last_inference_ms{0};  // since the epoch
  // Indexed by batch size; [0] unused.
  std::unique_ptr<BatchStat[]> batch;
  const int64_t batch_slots;
  // Request latency histogram (cumulative counts are derived when rendered).
  std::array<std::atomic<uint64_t>, kLatencyBucketsSeconds.size() + 1> latency_buckets{};
  std::atomic<uint64_t> latency_sum_ns{0};
  // Decoupled models only: statistics by response index.
  ResponseStatistics responses;
};

}  // namespace inferd

#endif  // INFERD_CORE_STATS_MODEL_STATISTICS_H_

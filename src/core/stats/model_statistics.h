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

#include "core/stats/admission_rejections.h"
#include "core/stats/duration_stat.h"
#include "core/stats/latency_histogram.h"
#include "core/stats/latency_summary.h"
#include "core/stats/metrics_config.h"
#include "core/stats/response_statistics.h"
#include "core/stats/saturation.h"

namespace inferd {

// Durations of the executions that ran with one batch size.
struct BatchStat {
  DurationStat compute_input;
  DurationStat compute_infer;
  DurationStat compute_output;
};

// The latency summaries of one version (--metrics-config
// summary_latencies=true), in microseconds, each observed per request.
struct LatencySummaries {
  LatencySummaries(const MetricsConfig& config, const Clock& clock)
      : request(config, clock),
        queue(config, clock),
        compute_input(config, clock),
        compute_infer(config, clock),
        compute_output(config, clock) {}
  LatencySummary request;  // successful requests only, as Triton
  LatencySummary queue;
  LatencySummary compute_input;
  LatencySummary compute_infer;
  LatencySummary compute_output;
};

// Upper bounds (milliseconds) of Triton's first-response histogram buckets.
inline constexpr std::array<double, 4> kFirstResponseBucketsMs = {100, 500, 2000, 5000};

// Time from a decoupled model's request to its first response (--metrics-config
// histogram_latencies=true): Triton's nv_inference_first_response_histogram_ms.
// Relaxed atomics, no lock.
struct FirstResponseHistogram {
  void Observe(uint64_t ns);
  // Per bucket (the last one past every bound); cumulative counts are derived
  // when rendered.
  std::array<std::atomic<uint64_t>, kFirstResponseBucketsMs.size() + 1> buckets{};
  std::atomic<uint64_t> sum_ns{0};
};

class ModelStatistics {
 public:
  // Batch sizes 1..max_batch_size get their own counters (1 when not batching).
  // With `metrics` asking for summaries, latencies are also observed into
  // summaries timed by `clock`; both outlive the statistics. A `decoupled`
  // model's first responses go into a histogram when `metrics` asks for it.
  explicit ModelStatistics(int64_t max_batch_size, const MetricsConfig* metrics = nullptr,
                           const Clock* clock = nullptr, bool decoupled = false);

  // A request got its final response `duration_ns` after it was queued.
  void RecordRequest(bool success, uint64_t duration_ns);
  // A request waited `queue_ns` before it was handed to an instance.
  void RecordQueue(uint64_t queue_ns);
  // An execution waited `ns` for the rate limiter's resources (only instances
  // that list rate_limiter resources, with --rate-limit=execution_count).
  void RecordRateLimiterWait(uint64_t ns) { rate_limiter_wait.Add(ns); }
  // A decoupled model's request sent its first response `ns` after it was
  // queued.
  void RecordFirstResponse(uint64_t ns) {
    if (first_response) first_response->Observe(ns);
  }
  // One backend execution of `request_count` requests with `rows` rows in
  // all is starting: the execution and inference counts go up now, so a
  // client that got its response sees them.
  void RecordExecutionStart(uint64_t request_count, uint64_t rows, uint64_t wall_ms);
  // ... and it took `input_ns` to prepare inputs, `infer_ns` to compute and
  // `output_ns` to deliver outputs (each request counts each time once). The
  // compute counts go up here, with the times, after the responses went out.
  void RecordExecutionTime(uint64_t request_count, uint64_t rows, uint64_t input_ns,
                           uint64_t infer_ns, uint64_t output_ns);

  // An ensemble request of `rows` rows (1 when the ensemble does not batch)
  // succeeded: Triton counts it like one execution of the ensemble, its queue
  // time its own (`queue_ns`, from its arrival to its first step), its compute
  // times its steps' sums (compute_tally.h), at `wall_ms`.
  void RecordEnsembleRequest(uint64_t rows, uint64_t queue_ns, uint64_t input_ns,
                             uint64_t infer_ns, uint64_t output_ns, uint64_t wall_ms);

  // The model uses the response cache: its cache metrics (and, when the
  // metrics settings ask for summaries, the cache summaries) are kept. Called
  // before the model serves.
  void EnableCache();
  // A response came from the response cache after `queue_ns` in the server
  // (the time is added to the queue's, not its count) and a lookup and copy
  // of `ns`. Neither an inference nor an execution: as Triton's cache_hit.
  void RecordCacheHit(uint64_t ns, uint64_t queue_ns);
  // A request missed the cache and its response was stored (or was too large
  // to be): the lookup and the insertion took `ns` (Triton's cache_miss).
  void RecordCacheMiss(uint64_t ns);

  DurationStat success, fail, queue, compute_input, compute_infer, compute_output;
  DurationStat cache_hit, cache_miss;
  // EnableCache() was called: the cache metrics are exposed. Constant once
  // the model serves.
  bool cache_enabled = false;
  // Null unless the cache is enabled and summaries were asked for (µs).
  std::unique_ptr<LatencySummary> cache_hit_summary, cache_miss_summary;
  // Executions that waited for the rate limiter and the time they waited (part
  // of their requests' queue time, as in Triton).
  DurationStat rate_limiter_wait;
  std::atomic<uint64_t> inference_count{0};  // rows that ran
  std::atomic<uint64_t> execution_count{0};
  std::atomic<uint64_t> last_inference_ms{0};  // since the epoch
  // Indexed by batch size; [0] unused.
  std::unique_ptr<BatchStat[]> batch;
  const int64_t batch_slots;
  // Latency histograms (--metrics-config latency_buckets): end to end (every
  // request, as the success and fail counts), queue (as the queue count) and
  // compute (each request of an execution, as the compute_infer count).
  LatencyHistogram request_latency;
  LatencyHistogram queue_latency;
  LatencyHistogram compute_latency;
  // Busy share of the instances; null without a clock (unit tests).
  const std::unique_ptr<Saturation> saturation;
  // Null unless summaries were asked for.
  const std::unique_ptr<LatencySummaries> summaries;
  // Null unless the first-response histogram was asked for (decoupled only).
  const std::unique_ptr<FirstResponseHistogram> first_response;
  // Decoupled models only: statistics by response index.
  ResponseStatistics responses;
  // Client requests admission control refused, by reason.
  AdmissionRejections rejected;

 private:
  const MetricsConfig* const metrics_;
  const Clock* const clock_;
};

}  // namespace inferd

#endif  // INFERD_CORE_STATS_MODEL_STATISTICS_H_

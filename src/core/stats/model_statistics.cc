#include "core/stats/model_statistics.h"

#include <algorithm>

namespace inferd {

namespace {

// Triton observes whole microseconds.
double Micros(uint64_t ns) { return static_cast<double>(ns / 1000); }

}  // namespace

void FirstResponseHistogram::Observe(uint64_t ns) {
  const double ms = static_cast<double>(ns) / 1e6;
  const size_t bucket = static_cast<size_t>(
      std::lower_bound(kFirstResponseBucketsMs.begin(), kFirstResponseBucketsMs.end(), ms) -
      kFirstResponseBucketsMs.begin());
  buckets[bucket].fetch_add(1, std::memory_order_relaxed);
  sum_ns.fetch_add(ns, std::memory_order_relaxed);
}

ModelStatistics::ModelStatistics(int64_t max_batch_size, const MetricsConfig* metrics,
                                 const Clock* clock, bool decoupled)
    : batch(new BatchStat[std::max<int64_t>(1, max_batch_size) + 1]),
      batch_slots(std::max<int64_t>(1, max_batch_size) + 1),
      request_latency(metrics != nullptr ? metrics->latency_buckets : DefaultLatencyBuckets()),
      queue_latency(metrics != nullptr ? metrics->latency_buckets : DefaultLatencyBuckets()),
      compute_latency(metrics != nullptr ? metrics->latency_buckets : DefaultLatencyBuckets()),
      saturation(clock != nullptr
                     ? std::make_unique<Saturation>(
                           *clock, (metrics != nullptr ? metrics->saturation_window_ms : 10000) *
                                       1'000'000)
                     : nullptr),
      summaries(metrics != nullptr && clock != nullptr && metrics->Summaries()
                    ? std::make_unique<LatencySummaries>(*metrics, *clock)
                    : nullptr),
      first_response(metrics != nullptr && decoupled && metrics->Histograms()
                         ? std::make_unique<FirstResponseHistogram>()
                         : nullptr),
      metrics_(metrics),
      clock_(clock) {}

void ModelStatistics::EnableCache() {
  cache_enabled = true;
  if (summaries) {
    cache_hit_summary = std::make_unique<LatencySummary>(*metrics_, *clock_);
    cache_miss_summary = std::make_unique<LatencySummary>(*metrics_, *clock_);
  }
}

void ModelStatistics::RecordCacheHit(uint64_t ns, uint64_t queue_ns) {
  cache_hit.Add(ns);
  queue.AddTime(queue_ns);
  if (cache_hit_summary) cache_hit_summary->Observe(Micros(ns));
}

void ModelStatistics::RecordCacheMiss(uint64_t ns) {
  cache_miss.Add(ns);
  if (cache_miss_summary) cache_miss_summary->Observe(Micros(ns));
}

void ModelStatistics::RecordQueue(uint64_t queue_ns) {
  queue.Add(queue_ns);
  queue_latency.Observe(queue_ns);
  if (summaries) summaries->queue.Observe(Micros(queue_ns));
}

void ModelStatistics::RecordRequest(bool ok, uint64_t duration_ns) {
  (ok ? success : fail).Add(duration_ns);
  request_latency.Observe(duration_ns);
  if (summaries && ok) summaries->request.Observe(Micros(duration_ns));
}

void ModelStatistics::RecordEnsembleRequest(uint64_t rows, uint64_t queue_ns, uint64_t input_ns,
                                            uint64_t infer_ns, uint64_t output_ns,
                                            uint64_t wall_ms) {
  RecordQueue(queue_ns);  // first: its count is what settled statistics compare with
  RecordExecutionStart(1, rows, wall_ms);
  RecordExecutionTime(1, rows, input_ns, infer_ns, output_ns);
}

void ModelStatistics::RecordExecutionStart(uint64_t request_count, uint64_t rows,
                                           uint64_t wall_ms) {
  execution_count.fetch_add(1, std::memory_order_relaxed);
  inference_count.fetch_add(rows, std::memory_order_relaxed);
  last_inference_ms.store(wall_ms, std::memory_order_relaxed);
}

void ModelStatistics::RecordExecutionTime(uint64_t request_count, uint64_t rows,
                                          uint64_t input_ns, uint64_t infer_ns,
                                          uint64_t output_ns) {
  // Times first, then counts: a reader that sees an execution's count (the
  // compute counts are read once, from compute_infer) also sees its times, so
  // waiting for a count is waiting for the whole execution to be recorded.
  compute_latency.Observe(input_ns + infer_ns + output_ns, request_count);
  compute_input.AddTime(input_ns, request_count);
  compute_infer.AddTime(infer_ns, request_count);
  compute_output.AddTime(output_ns, request_count);
  compute_input.AddCount(request_count);
  compute_output.AddCount(request_count);
  compute_infer.AddCount(request_count);
  if (summaries && request_count > 0) {
    summaries->compute_input.Observe(Micros(input_ns), request_count);
    summaries->compute_infer.Observe(Micros(infer_ns), request_count);
    summaries->compute_output.Observe(Micros(output_ns), request_count);
  }
  if (rows > 0 && static_cast<int64_t>(rows) < batch_slots) {
    batch[rows].compute_input.AddTime(input_ns);
    batch[rows].compute_infer.AddTime(infer_ns);
    batch[rows].compute_output.AddTime(output_ns);
    batch[rows].compute_input.AddCount(1);
    batch[rows].compute_output.AddCount(1);
    batch[rows].compute_infer.AddCount(1);
  }
}

}  // namespace inferd

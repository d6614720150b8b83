// Percentiles, summaries and the window recorder of latency_stats.h.
#include "loadgen/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace inferd::loadgen {

int64_t Percentile(const std::vector<int64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  // Nearest rank: ceil(p/100 * n), 1-based, clamped to [1, n].
  const double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()));
  const size_t index = static_cast<size_t>(std::clamp(rank, 1.0, double(sorted.size()))) - 1;
  return sorted[index];
}

LatencySummary Summarize(std::vector<int64_t>& latencies_ns, uint64_t errors, double seconds) {
  LatencySummary summary;
  summary.requests = latencies_ns.size();
  summary.errors = errors;
  summary.seconds = seconds;
  if (seconds > 0) summary.requests_per_second = double(summary.requests) / seconds;
  if (latencies_ns.empty()) return summary;
  std::sort(latencies_ns.begin(), latencies_ns.end());
  const long double total = std::accumulate(latencies_ns.begin(), latencies_ns.end(), 0.0L);
  summary.mean_ns = static_cast<int64_t>(total / latencies_ns.size());
  summary.min_ns = latencies_ns.front();
  summary.max_ns = latencies_ns.back();
  summary.p50_ns = Percentile(latencies_ns, 50);
  summary.p90_ns = Percentile(latencies_ns, 90);
  summary.p95_ns = Percentile(latencies_ns, 95);
  summary.p99_ns = Percentile(latencies_ns, 99);
  return summary;
}

void LatencyRecorder::RecordSuccess(int64_t latency_ns) {
  total_successes_.fetch_add(1, std::memory_order_relaxed);
  MutexLock lock(&mu_);
  if (recording_) latencies_.push_back(latency_ns);
}

void LatencyRecorder::RecordError(std::string_view message) {
  total_errors_.fetch_add(1, std::memory_order_relaxed);
  MutexLock lock(&mu_);
  if (!recording_) return;
  ++errors_;
  if (first_error_.empty()) first_error_ = std::string(message);
}

void LatencyRecorder::StartWindow() {
  MutexLock lock(&mu_);
  latencies_.clear();
  latencies_.reserve(1 << 16);
  errors_ = 0;
  first_error_.clear();
  recording_ = true;
}

LatencySummary LatencyRecorder::EndWindow(double seconds) {
  std::vector<int64_t> latencies;
  uint64_t errors;
  std::string first_error;
  {
    MutexLock lock(&mu_);
    recording_ = false;
    latencies.swap(latencies_);
    errors = errors_;
    first_error.swap(first_error_);
  }
  LatencySummary summary = Summarize(latencies, errors, seconds);
  summary.first_error = std::move(first_error);
  return summary;
}

}  // namespace inferd::loadgen

#include "core/stats/latency_histogram.h"

#include <algorithm>

namespace inferd {

LatencyHistogram::LatencyHistogram(const std::vector<double>& bounds_seconds)
    : bounds_(bounds_seconds), counts_(new std::atomic<uint64_t>[bounds_seconds.size() + 1]) {
  for (size_t i = 0; i <= bounds_.size(); ++i) counts_[i].store(0, std::memory_order_relaxed);
}

void LatencyHistogram::Observe(uint64_t ns, uint64_t count) {
  if (count == 0) return;
  const double seconds = static_cast<double>(ns) / 1e9;
  // Prometheus buckets are "less than or equal": the first bound >= seconds.
  const size_t bucket = static_cast<size_t>(
      std::lower_bound(bounds_.begin(), bounds_.end(), seconds) - bounds_.begin());
  counts_[bucket].fetch_add(count, std::memory_order_relaxed);
  sum_ns_.fetch_add(ns * count, std::memory_order_relaxed);
}

LatencyHistogram::Snapshot LatencyHistogram::Read() const {
  Snapshot snapshot;
  snapshot.cumulative.reserve(bounds_.size() + 1);
  uint64_t total = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    total += counts_[i].load(std::memory_order_relaxed);
    snapshot.cumulative.push_back(total);
  }
  snapshot.sum_seconds = static_cast<double>(sum_ns_.load(std::memory_order_relaxed)) / 1e9;
  return snapshot;
}

}  // namespace inferd

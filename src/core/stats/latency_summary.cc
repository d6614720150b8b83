#include "core/stats/latency_summary.h"

#include <algorithm>

namespace inferd {

LatencySummary::LatencySummary(const MetricsConfig& config, const Clock& clock)
    : targets_(config.quantiles),
      clock_(clock),
      bucket_ns_(std::max<uint64_t>(
          1, config.summary_max_age_ns /
                 static_cast<uint64_t>(std::max(1, config.summary_age_buckets)))),
      last_rotation_ns_(clock.NowNs()) {
  MutexLock lock(&mu_);
  for (int i = 0; i < std::max(1, config.summary_age_buckets); ++i) buckets_.emplace_back(targets_);
}

void LatencySummary::Rotate() {
  const uint64_t now = clock_.NowNs();
  // After a long idle time every bucket is stale: clear them all at once.
  if (now - last_rotation_ns_ >= bucket_ns_ * buckets_.size()) {
    for (CkmsQuantiles& bucket : buckets_) bucket.Reset();
    last_rotation_ns_ = now - (now - last_rotation_ns_) % bucket_ns_;
    return;
  }
  while (now - last_rotation_ns_ >= bucket_ns_) {
    buckets_[current_].Reset();
    current_ = (current_ + 1) % buckets_.size();
    last_rotation_ns_ += bucket_ns_;
  }
}

void LatencySummary::Observe(double value, uint64_t times) {
  MutexLock lock(&mu_);
  Rotate();
  for (uint64_t i = 0; i < times; ++i) {
    for (CkmsQuantiles& bucket : buckets_) bucket.Insert(value);
  }
  count_ += times;
  sum_ += value * static_cast<double>(times);
}

LatencySummary::Snapshot LatencySummary::Read() {
  MutexLock lock(&mu_);
  Rotate();
  Snapshot snapshot;
  snapshot.targets = targets_;
  for (const QuantileTarget& target : targets_) {
    snapshot.values.push_back(buckets_[current_].Get(target.quantile));
  }
  snapshot.count = count_;
  snapshot.sum = sum_;
  return snapshot;
}

}  // namespace inferd

// A Prometheus summary of one latency of one model version: the quantiles of
// the values observed over a sliding time window (max_age, kept as
// age_buckets CKMS streams that are cleared in turn, as prometheus-cpp does),
// and the count and sum of every value observed. Thread-safe: one mutex per
// summary, so models never contend with each other.
#ifndef INFERD_CORE_STATS_LATENCY_SUMMARY_H_
#define INFERD_CORE_STATS_LATENCY_SUMMARY_H_

#include <cstdint>
#include <vector>

#include "core/stats/ckms_quantiles.h"
#include "core/stats/metrics_config.h"
#include "core/timing/clock.h"
#include "inferd/base/mutex.h"

namespace inferd {

class LatencySummary {
 public:
  // `clock` outlives the summary.
  LatencySummary(const MetricsConfig& config, const Clock& clock);

  // Adds `value`, `times` times.
  void Observe(double value, uint64_t times = 1) EXCLUDES(mu_);

  struct Snapshot {
    std::vector<QuantileTarget> targets;
    std::vector<double> values;  // per target; NaN when the window is empty
    uint64_t count = 0;          // every value observed
    double sum = 0;
  };
  Snapshot Read() EXCLUDES(mu_);

 private:
  // Clears the oldest window for each bucket period that has passed.
  void Rotate() REQUIRES(mu_);

  // Constant after construction.
  const std::vector<QuantileTarget> targets_;
  const Clock& clock_;
  const uint64_t bucket_ns_;  // max_age / age_buckets

  Mutex mu_;
  // Each bucket holds the values since it was last cleared; `current_` is the
  // oldest, which answers queries (it covers up to max_age).
  std::vector<CkmsQuantiles> buckets_ GUARDED_BY(mu_);
  size_t current_ GUARDED_BY(mu_) = 0;
  uint64_t last_rotation_ns_ GUARDED_BY(mu_);
  uint64_t count_ GUARDED_BY(mu_) = 0;
  double sum_ GUARDED_BY(mu_) = 0;
};

}  // namespace inferd

#endif  // INFERD_CORE_STATS_LATENCY_SUMMARY_H_

// A Prometheus histogram of latencies with buckets chosen at startup
// (--metrics-config latency_buckets): relaxed atomic counts, no lock, so it
// can be observed on the request path. Thread-safe.
#ifndef INFERD_CORE_STATS_LATENCY_HISTOGRAM_H_
#define INFERD_CORE_STATS_LATENCY_HISTOGRAM_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace inferd {

class LatencyHistogram {
 public:
  // `bounds_seconds`: strictly increasing finite upper bounds; it outlives
  // the histogram (the server's metrics settings).
  explicit LatencyHistogram(const std::vector<double>& bounds_seconds);

  // `count` observations of `ns` each (a batch's requests share its time).
  void Observe(uint64_t ns, uint64_t count = 1);

  struct Snapshot {
    std::vector<uint64_t> cumulative;  // one per bound, then +Inf (= the count)
    double sum_seconds = 0;
  };
  Snapshot Read() const;
  const std::vector<double>& bounds() const { return bounds_; }

 private:
  const std::vector<double>& bounds_;
  // Per bucket, the last past every bound.
  std::unique_ptr<std::atomic<uint64_t>[]> counts_;
  std::atomic<uint64_t> sum_ns_{0};
};

}  // namespace inferd

#endif  // INFERD_CORE_STATS_LATENCY_HISTOGRAM_H_

// Streaming quantiles with targeted rank error: the CKMS algorithm (Cormode,
// Korn, Muthukrishnan, Srivastava, "Effective Computation of Biased Quantiles
// over Data Streams", ICDE 2005), as Prometheus client libraries use it for
// summaries. For each target (q, e) the value returned for q has a rank within
// e * n of q * n among the n values seen, while only a small sorted sample of
// the stream is kept. Written here (not a library). Not thread-safe: its owner
// locks (LatencySummary).
#ifndef INFERD_CORE_STATS_CKMS_QUANTILES_H_
#define INFERD_CORE_STATS_CKMS_QUANTILES_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/stats/metrics_config.h"

namespace inferd {

class CkmsQuantiles {
 public:
  explicit CkmsQuantiles(std::vector<QuantileTarget> targets);

  // Adds one value.
  void Insert(double value);
  // The value at quantile `q` (one of the targets for the error bound to
  // hold); NaN when nothing was inserted.
  double Get(double q);
  // Forgets every value.
  void Reset();
  // Values inserted since the last Reset.
  uint64_t count() const { return count_ + buffered_; }
  // Samples kept (for tests of the compression).
  size_t sample_size() const { return samples_.size(); }

 private:
  struct Sample {
    double value;
    uint64_t g;      // rank of this sample minus rank of the previous one
    uint64_t delta;  // uncertainty of this sample's rank
  };
  static constexpr size_t kBufferSize = 500;

  // The rank error allowed at rank `rank` of `count_` values: the smallest
  // over the targets, each allowing 2e at its quantile and more away from it.
  double AllowedError(double rank) const;
  // Merges the buffered values into the samples, then compresses.
  void Flush();
  void Compress();

  const std::vector<QuantileTarget> targets_;
  std::vector<Sample> samples_;  // sorted by value
  uint64_t count_ = 0;           // values in samples_
  std::array<double, kBufferSize> buffer_{};
  size_t buffered_ = 0;
};

}  // namespace inferd

#endif  // INFERD_CORE_STATS_CKMS_QUANTILES_H_

#include "core/stats/ckms_quantiles.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace inferd {

CkmsQuantiles::CkmsQuantiles(std::vector<QuantileTarget> targets) : targets_(std::move(targets)) {}

void CkmsQuantiles::Insert(double value) {
  buffer_[buffered_++] = value;
  if (buffered_ == kBufferSize) Flush();
}

double CkmsQuantiles::AllowedError(double rank) const {
  const double n = static_cast<double>(count_);
  double allowed = n + 1;
  for (const QuantileTarget& t : targets_) {
    // Below the target's rank the error may grow towards the low end, above
    // it towards the high end; both meet at 2e*n at rank q*n.
    const double error = rank <= t.quantile * n ? 2 * t.error * (n - rank) / (1 - t.quantile)
                                                : 2 * t.error * rank / t.quantile;
    allowed = std::min(allowed, error);
  }
  return allowed;
}

void CkmsQuantiles::Flush() {
  if (buffered_ == 0) return;
  std::sort(buffer_.begin(), buffer_.begin() + buffered_);
  std::vector<Sample> merged;
  merged.reserve(samples_.size() + buffered_);
  size_t next = 0;   // next old sample
  double rank = 0;   // ranks of the samples merged so far
  for (size_t i = 0; i < buffered_; ++i) {
    const double value = buffer_[i];
    while (next < samples_.size() && samples_[next].value < value) {
      rank += static_cast<double>(samples_[next].g);
      merged.push_back(samples_[next++]);
    }
    // A new minimum or maximum is known exactly; inside, its rank is as
    // uncertain as the error allowed there.
    uint64_t delta = 0;
    if (!merged.empty() && next < samples_.size()) {
      const double allowed = std::floor(AllowedError(rank)) - 1;
      delta = allowed > 0 ? static_cast<uint64_t>(allowed) : 0;
    }
    merged.push_back(Sample{value, 1, delta});
    rank += 1;
    ++count_;
  }
  merged.insert(merged.end(), samples_.begin() + static_cast<std::ptrdiff_t>(next), samples_.end());
  samples_ = std::move(merged);
  buffered_ = 0;
  Compress();
}

void CkmsQuantiles::Compress() {
  if (samples_.size() < 3) return;
  std::vector<Sample> kept;
  kept.reserve(samples_.size());
  kept.push_back(samples_[0]);  // the minimum stays exact
  double rank = static_cast<double>(samples_[0].g);  // ranks before kept.back()
  for (size_t i = 1; i < samples_.size(); ++i) {
    Sample current = samples_[i];
    const Sample& last = kept.back();
    // `last` folds into `current` when the merged sample's rank uncertainty
    // stays within what is allowed at last's rank.
    if (kept.size() > 1 &&
        static_cast<double>(last.g + current.g + current.delta) <= AllowedError(rank)) {
      current.g += last.g;
      kept.pop_back();
    } else if (kept.size() > 1) {
      rank += static_cast<double>(last.g);
    }
    kept.push_back(current);
  }
  samples_ = std::move(kept);
}

double CkmsQuantiles::Get(double q) {
  Flush();
  if (samples_.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double desired = q * static_cast<double>(count_);
  const double bound = desired + AllowedError(desired) / 2;
  double rank = 0;
  const Sample* previous = &samples_[0];
  for (size_t i = 1; i < samples_.size(); ++i) {
    rank += static_cast<double>(previous->g);
    const Sample& current = samples_[i];
    if (rank + static_cast<double>(current.g + current.delta) > bound) return previous->value;
    previous = &current;
  }
  return previous->value;
}

void CkmsQuantiles::Reset() {
  samples_.clear();
  count_ = 0;
  buffered_ = 0;
}

}  // namespace inferd

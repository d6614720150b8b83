#include "core/stats/saturation.h"

#include <algorithm>

namespace inferd {

Saturation::Saturation(const Clock& clock, uint64_t window_ns)
    : clock_(clock), window_ns_(window_ns) {
  samples_.push_back({clock_.NowNs(), 0});
}

void Saturation::Begin(uint64_t start_ns) {
  MutexLock lock(&mu_);
  ++active_;
  started_sum_ += start_ns;
}

void Saturation::End(uint64_t start_ns, uint64_t end_ns) {
  MutexLock lock(&mu_);
  --active_;
  started_sum_ -= start_ns;
  done_ns_ += end_ns - start_ns;
}

uint64_t Saturation::BusyAt(uint64_t now_ns) const {
  // Each running execution has been busy since its start.
  return done_ns_ + active_ * now_ns - started_sum_;
}

double Saturation::Read(uint32_t instances) {
  MutexLock lock(&mu_);
  const uint64_t now = clock_.NowNs();
  const uint64_t busy = BusyAt(now);
  // The newest sample at least a window old (else the oldest) is the base;
  // older ones are no longer needed.
  while (samples_.size() > 1 && now - samples_[1].at_ns >= window_ns_) samples_.pop_front();
  const Sample base = samples_.front();
  if (now - samples_.back().at_ns >= window_ns_ / 4) samples_.push_back({now, busy});
  if (instances == 0 || now <= base.at_ns) return 0;
  const double share = static_cast<double>(busy - base.busy_ns) /
                       (static_cast<double>(now - base.at_ns) * instances);
  return std::clamp(share, 0.0, 1.0);
}

}  // namespace inferd

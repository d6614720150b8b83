#include "turnaround_spin.h"

#include <algorithm>

namespace inferd::python {

uint64_t TurnaroundSpin::Window() {
  if (max_ns_ == 0) return 0;
  if (skip_ > 0) {
    --skip_;
    return 0;
  }
  // Twice the typical turnaround leaves room for its jitter; a typical one
  // above the bound still probes (at the bound): the model may have sped up.
  return std::min(max_ns_, 2 * typical_ns_);
}

void TurnaroundSpin::Record(uint64_t window_ns, uint64_t waited_ns) {
  if (max_ns_ == 0) return;
  typical_ns_ = typical_ns_ - typical_ns_ / 8 + waited_ns / 8;
  if (window_ns == 0) return;
  if (waited_ns <= window_ns) {
    failures_ = 0;
    return;
  }
  failures_ = std::min(failures_ + 1, kMaxBackoff);
  skip_ = (1u << failures_) - 1;
}

}  // namespace inferd::python

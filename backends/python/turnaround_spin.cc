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
  // A failed poll counts twice what a successful one does: polling goes on
  // while two polls in three succeed, and backs off further while fewer do
  // (at sparse load, a stub woken from a deeply idle core answers late about
  // half the time; each late answer polled for costs more than a sleep).
  if (waited_ns <= window_ns) {
    failures_ = std::max(failures_ - 1, 0);
    return;
  }
  failures_ = std::min(failures_ + 2, 2 * kMaxBackoff);
  skip_ = (1u << (failures_ / 2)) - 1;
}

}  // namespace inferd::python

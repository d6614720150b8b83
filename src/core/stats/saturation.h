// How busy a model's instances were: busy instance time over wall time
// across its instances, over roughly the last window, 0..1 — the signal an
// autoscaler scales on (inferd_model_saturation). Executions report their
// start and end; a read compares the busy time now with a sample taken at
// least a window ago (samples are kept as reads come, a few per window).
// Time comes from the injected clock. Thread-safe.
#ifndef INFERD_CORE_STATS_SATURATION_H_
#define INFERD_CORE_STATS_SATURATION_H_

#include <cstdint>
#include <deque>

#include "inferd/base/mutex.h"
#include "core/timing/clock.h"

namespace inferd {

class Saturation {
 public:
  Saturation(const Clock& clock, uint64_t window_ns);

  // An instance started / ended an execution that started at `start_ns`.
  void Begin(uint64_t start_ns) EXCLUDES(mu_);
  void End(uint64_t start_ns, uint64_t end_ns) EXCLUDES(mu_);

  // Busy share of `instances` instances over about the last window (0 when
  // no time passed or there are no instances).
  double Read(uint32_t instances) EXCLUDES(mu_);

 private:
  struct Sample {
    uint64_t at_ns;
    uint64_t busy_ns;
  };
  uint64_t BusyAt(uint64_t now_ns) const REQUIRES(mu_);

  const Clock& clock_;
  const uint64_t window_ns_;
  mutable Mutex mu_;
  uint64_t done_ns_ GUARDED_BY(mu_) = 0;     // busy time of ended executions
  uint64_t active_ GUARDED_BY(mu_) = 0;      // executions running
  uint64_t started_sum_ GUARDED_BY(mu_) = 0; // sum of their start times
  std::deque<Sample> samples_ GUARDED_BY(mu_);  // oldest first
};

}  // namespace inferd

#endif  // INFERD_CORE_STATS_SATURATION_H_

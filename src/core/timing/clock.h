// The clock the core measures and schedules with: every read of time in the
// core goes through it. Injected: the server owns one (the steady clock) and
// hands it to what it creates (model_services.h), and unit tests hand a
// FakeClock instead, so batching delays, queue timeouts, sweeps, unload
// drains and repository polls run in simulated time. Thread-safe.
#ifndef INFERD_CORE_TIMING_CLOCK_H_
#define INFERD_CORE_TIMING_CLOCK_H_

#include <chrono>
#include <cstdint>

#include "inferd/base/mutex.h"

namespace inferd {

class Clock {
 public:
  virtual ~Clock() = default;

  // Monotonic time in nanoseconds.
  virtual uint64_t NowNs() const = 0;
  // Calendar time in milliseconds since the Unix epoch: only for showing
  // when something happened (a model's last inference), never for measuring.
  virtual uint64_t WallMs() const = 0;
  // Releases `mu`, waits on `cv` until it is signalled or this clock reaches
  // `deadline_ns`, and retakes `mu`. May return early (spuriously): callers
  // re-check their state and the time in a loop.
  virtual void WaitUntil(CondVar* cv, Mutex* mu, uint64_t deadline_ns) const REQUIRES(mu) = 0;

  // The process's steady clock.
  static const Clock& Steady();
};

// std::chrono::steady_clock.
class SteadyClock final : public Clock {
 public:
  uint64_t NowNs() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  uint64_t WallMs() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  void WaitUntil(CondVar* cv, Mutex* mu, uint64_t deadline_ns) const override REQUIRES(mu) {
    const uint64_t now = NowNs();
    if (deadline_ns > now) cv->WaitFor(mu, std::chrono::nanoseconds(deadline_ns - now));
  }
};

inline const Clock& Clock::Steady() {
  static const SteadyClock clock;
  return clock;
}

}  // namespace inferd

#endif  // INFERD_CORE_TIMING_CLOCK_H_

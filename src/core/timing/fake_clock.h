// A Clock for unit tests: time stands still until the test advances it, so a
// test decides exactly when a batching delay or a queue timeout runs out.
// Threads waiting on it are tracked with the time they saw, so a test can wait
// until the code under test has looked at the current time, made its decision
// and gone back to sleep, before it checks what happened or advances again.
// Thread-safe.
#ifndef INFERD_CORE_TIMING_FAKE_CLOCK_H_
#define INFERD_CORE_TIMING_FAKE_CLOCK_H_

#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "core/timing/clock.h"

namespace inferd {

class FakeClock final : public Clock {
 public:
  explicit FakeClock(uint64_t start_ns = 1'000'000'000) : now_(start_ns) {}

  uint64_t NowNs() const override { return now_.load(std::memory_order_acquire); }

  // Waits on `cv` with a short real timeout: a waiter notices an Advance within
  // about a millisecond without the clock having to know every condition
  // variable. Simulated time still decides everything the waiter does.
  void WaitUntil(CondVar* cv, Mutex* mu, uint64_t deadline_ns) const override REQUIRES(mu) {
    const uint64_t seen = NowNs();
    if (seen >= deadline_ns) return;
    {
      MutexLock lock(&waiting_mu_);
      waiting_.insert(seen);
    }
    cv->WaitFor(mu, std::chrono::milliseconds(1));
    MutexLock lock(&waiting_mu_);
    waiting_.erase(waiting_.find(seen));
  }

  void Advance(std::chrono::nanoseconds by) {
    now_.fetch_add(static_cast<uint64_t>(by.count()), std::memory_order_acq_rel);
  }

  // Returns true once at least `count` threads wait for time to pass having
  // seen the current time; false if that does not happen within `limit` of
  // real time (the test then fails instead of hanging).
  bool AwaitWaiters(int count, std::chrono::seconds limit = std::chrono::seconds(10)) const {
    const auto give_up = std::chrono::steady_clock::now() + limit;
    while (WaitersAtNow() < count) {
      if (std::chrono::steady_clock::now() > give_up) return false;
      std::this_thread::yield();
    }
    return true;
  }

 private:
  int WaitersAtNow() const {
    const uint64_t now = NowNs();
    MutexLock lock(&waiting_mu_);
    int count = 0;
    for (auto it = waiting_.lower_bound(now); it != waiting_.end(); ++it) ++count;
    return count;
  }

  std::atomic<uint64_t> now_;
  mutable Mutex waiting_mu_;
  // The time each waiting thread saw when it began to wait.
  mutable std::multiset<uint64_t> waiting_ GUARDED_BY(waiting_mu_);
};

}  // namespace inferd

#endif  // INFERD_CORE_TIMING_FAKE_CLOCK_H_

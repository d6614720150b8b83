// A Clock for unit tests: time stands still until the test advances it, so a
// test decides exactly when a batching delay or a queue timeout runs out.
// The clock must outlive every thread waiting on it; a test advances it only
// while the objects whose threads wait on it exist.
// Threads waiting on it are tracked with the time they saw, so a test can wait
// until the code under test has looked at the current time, made its decision
// and gone back to sleep, before it checks what happened or advances again.
// Thread-safe.
#ifndef INFERD_CORE_TIMING_FAKE_CLOCK_H_
#define INFERD_CORE_TIMING_FAKE_CLOCK_H_

#include <atomic>
#include <chrono>
#include <list>
#include <thread>
#include <vector>

#include "core/timing/clock.h"

namespace inferd {

class FakeClock final : public Clock {
 public:
  explicit FakeClock(uint64_t start_ns = 1'000'000'000) : start_ns_(start_ns), now_(start_ns) {}

  uint64_t NowNs() const override { return now_.load(std::memory_order_acquire); }
  // A fixed calendar time (2023-11-14) at the start, moved on with the clock.
  uint64_t WallMs() const override {
    return 1'700'000'000'000 + (NowNs() - start_ns_) / 1'000'000;
  }

  // Waits on `cv` until the code under test signals it or Advance moves the
  // time (Advance signals every waiter under its own mutex, so no wake-up is
  // lost). Nothing else wakes it, so a missing signal in the code under test
  // shows as a test that times out instead of being hidden by polling; the
  // 60 s real bound only keeps such a test from hanging for ever.
  void WaitUntil(CondVar* cv, Mutex* mu, uint64_t deadline_ns) const override REQUIRES(mu) {
    std::list<Waiter>::iterator me;
    {
      // The time is read after registering: an Advance either finds this
      // waiter or happened before the read.
      MutexLock lock(&waiting_mu_);
      const uint64_t seen = NowNs();
      if (seen >= deadline_ns) return;
      me = waiting_.insert(waiting_.end(), Waiter{cv, mu, seen});
    }
    cv->WaitFor(mu, std::chrono::seconds(60));
    MutexLock lock(&waiting_mu_);
    waiting_.erase(me);
  }

  // Moves the time on and wakes every waiter to look at it.
  void Advance(std::chrono::nanoseconds by) {
    now_.fetch_add(static_cast<uint64_t>(by.count()), std::memory_order_acq_rel);
    std::vector<Waiter> waiters;
    {
      MutexLock lock(&waiting_mu_);
      waiters.assign(waiting_.begin(), waiting_.end());
    }
    // Under the waiter's own mutex: it is either inside its wait (and is
    // woken) or has not released the mutex yet (and will see the new time).
    for (const Waiter& waiter : waiters) {
      MutexLock lock(waiter.mu);
      waiter.cv->SignalAll();
    }
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
  struct Waiter {
    CondVar* cv;
    Mutex* mu;
    uint64_t seen;  // the time it saw when it began to wait
  };

  int WaitersAtNow() const {
    const uint64_t now = NowNs();
    MutexLock lock(&waiting_mu_);
    int count = 0;
    for (const Waiter& waiter : waiting_) count += waiter.seen >= now ? 1 : 0;
    return count;
  }

  const uint64_t start_ns_;
  std::atomic<uint64_t> now_;
  mutable Mutex waiting_mu_;
  mutable std::list<Waiter> waiting_ GUARDED_BY(waiting_mu_);
};

}  // namespace inferd

#endif  // INFERD_CORE_TIMING_FAKE_CLOCK_H_

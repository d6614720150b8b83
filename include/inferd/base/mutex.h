// The one mutex inferd locks with: std::mutex wrapped so that Clang's
// thread-safety analysis knows it (GUARDED_BY, REQUIRES, EXCLUDES), a scoped
// lock, and a condition variable that waits on it. Header-only: the core, the
// frontends, the tools and the backends all use it.
#ifndef INFERD_BASE_MUTEX_H_
#define INFERD_BASE_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "inferd/base/thread_annotations.h"

namespace inferd {

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  bool TryLock() TRY_ACQUIRE(true) { return mu_.try_lock(); }
  // Tells the analysis the caller holds it (where it cannot see that itself).
  void AssertHeld() const ASSERT_CAPABILITY(this) {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds `mu` for the scope. Unlock()/Lock() let a scope drop the lock for a
// while (to run callbacks without it) and take it back.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() RELEASE() {
    if (held_) mu_->Unlock();
  }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void Unlock() RELEASE() {
    mu_->Unlock();
    held_ = false;
  }
  void Lock() ACQUIRE() {
    mu_->Lock();
    held_ = true;
  }

 private:
  Mutex* const mu_;
  bool held_ = true;
};

// A condition variable bound to a Mutex the caller holds.
class CondVar {
 public:
  // Releases `mu`, waits for a notification (or a spurious wake), retakes `mu`.
  void Wait(Mutex* mu) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();
  }
  // As Wait, for at most `timeout`. Returns false when the time ran out.
  template <typename Rep, typename Period>
  bool WaitFor(Mutex* mu, std::chrono::duration<Rep, Period> timeout) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool notified = cv_.wait_for(lock, timeout) == std::cv_status::no_timeout;
    lock.release();
    return notified;
  }
  // As Wait, until `deadline`. Returns false when the time ran out.
  template <typename Clock, typename Duration>
  bool WaitUntil(Mutex* mu, std::chrono::time_point<Clock, Duration> deadline) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool notified = cv_.wait_until(lock, deadline) == std::cv_status::no_timeout;
    lock.release();
    return notified;
  }
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace inferd

#endif  // INFERD_BASE_MUTEX_H_

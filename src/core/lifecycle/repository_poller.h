// POLL mode's clock: a thread that asks the lifecycle to rescan the
// repositories (ModelLifecycle::Poll) every interval, on the injected clock,
// until destroyed. Thread-safe.
#ifndef INFERD_CORE_LIFECYCLE_REPOSITORY_POLLER_H_
#define INFERD_CORE_LIFECYCLE_REPOSITORY_POLLER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>

#include "core/timing/clock.h"
#include "inferd/base/mutex.h"

namespace inferd {

class RepositoryPoller {
 public:
  // Calls `poll` each time `clock` has moved on by `interval` since the
  // previous poll ended (the first one `interval` after construction).
  RepositoryPoller(std::function<void()> poll, std::chrono::seconds interval, const Clock& clock);
  // Stops polling; waits for a poll in progress to end.
  ~RepositoryPoller();

 private:
  void Run() EXCLUDES(mu_);

  const std::function<void()> poll_;
  const uint64_t interval_ns_;
  const Clock& clock_;
  Mutex mu_;
  CondVar wake_;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_REPOSITORY_POLLER_H_

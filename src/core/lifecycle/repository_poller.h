// POLL mode's clock: a thread that asks the lifecycle to rescan the
// repositories every interval until destroyed. Thread-safe.
#ifndef INFERD_CORE_LIFECYCLE_REPOSITORY_POLLER_H_
#define INFERD_CORE_LIFECYCLE_REPOSITORY_POLLER_H_

#include <chrono>
#include <thread>

#include "inferd/base/mutex.h"

namespace inferd {

class ModelLifecycle;

class RepositoryPoller {
 public:
  RepositoryPoller(ModelLifecycle& lifecycle, std::chrono::seconds interval);
  // Stops polling; waits for a poll in progress to end.
  ~RepositoryPoller();

 private:
  void Run() EXCLUDES(mu_);

  ModelLifecycle& lifecycle_;
  const std::chrono::seconds interval_;
  Mutex mu_;
  CondVar wake_;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_REPOSITORY_POLLER_H_

// One thread that runs posted tasks in order, for the few requests whose
// server call blocks until it is done (loading and unloading models), so the
// frontends' network threads never wait on them. Thread-safe; guarded by mu_.
#ifndef INFERD_FRONTENDS_COMMON_BLOCKING_WORKER_H_
#define INFERD_FRONTENDS_COMMON_BLOCKING_WORKER_H_

#include <deque>
#include <functional>
#include <thread>

#include "inferd/base/mutex.h"
#include "inferd/base/thread_annotations.h"

namespace inferd {

class BlockingWorker {
 public:
  BlockingWorker();
  ~BlockingWorker();  // stops
  BlockingWorker(const BlockingWorker&) = delete;
  BlockingWorker& operator=(const BlockingWorker&) = delete;

  // Queues `task` behind those already posted. Tasks posted after Stop run
  // on the caller's thread.
  void Post(std::function<void()> task) EXCLUDES(mu_);

  // Runs the tasks already queued, then joins the thread. Idempotent.
  void Stop() EXCLUDES(mu_);

 private:
  void Run() EXCLUDES(mu_);

  Mutex mu_;
  CondVar wake_;  // signalled on Post and Stop
  std::deque<std::function<void()>> tasks_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;  // started last, joined by Stop
};

}  // namespace inferd

#endif  // INFERD_FRONTENDS_COMMON_BLOCKING_WORKER_H_

// One thread that runs posted tasks in order, for the few requests whose
// server call blocks until it is done (loading and unloading models), so the
// frontends' network threads never wait on them. Thread-safe; guarded by mu_.
#ifndef INFERD_FRONTENDS_COMMON_BLOCKING_WORKER_H_
#define INFERD_FRONTENDS_COMMON_BLOCKING_WORKER_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace inferd {

class BlockingWorker {
 public:
  BlockingWorker();
  ~BlockingWorker();  // stops
  BlockingWorker(const BlockingWorker&) = delete;
  BlockingWorker& operator=(const BlockingWorker&) = delete;

  // Queues `task` behind those already posted. Tasks posted after Stop run
  // on the caller's thread.
  void Post(std::function<void()> task);

  // Runs the tasks already queued, then joins the thread. Idempotent.
  void Stop();

 private:
  void Run();

  std::mutex mu_;
  std::condition_variable wake_;                // notified on Post and Stop
  std::deque<std::function<void()>> tasks_;     // guarded by mu_
  bool stopping_ = false;                       // guarded by mu_
  std::thread thread_;                          // started last, joined by Stop
};

}  // namespace inferd

#endif  // INFERD_FRONTENDS_COMMON_BLOCKING_WORKER_H_

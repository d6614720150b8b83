// Plays one model instance in scheduler tests: calls NextBatch once on its own
// thread, as an instance thread does between executions, and lets the test
// see what it returned, or that it is still waiting. If NextBatch is still
// blocked when the InstanceThread is destroyed (a failing test), it stops the
// scheduler first, so the test ends instead of hanging. Thread-safe.
#ifndef INFERD_CORE_TEST_UTIL_INSTANCE_THREAD_H_
#define INFERD_CORE_TEST_UTIL_INSTANCE_THREAD_H_

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/infer/inference_request.h"
#include "core/scheduler/scheduler.h"
#include "inferd/base/mutex.h"

namespace inferd {

class InstanceThread {
 public:
  // Starts asking `source` for a batch for instance `index`; `scheduler` is
  // the same object's Scheduler side (stopped only by the destructor, see above).
  InstanceThread(Scheduler* scheduler, BatchSource* source, size_t index)
      : scheduler_(scheduler), source_(source), index_(index), thread_([this] { Run(); }) {}
  ~InstanceThread() {
    if (!AwaitReturn(std::chrono::seconds(0))) scheduler_->Stop();
    thread_.join();
  }
  InstanceThread(const InstanceThread&) = delete;
  InstanceThread& operator=(const InstanceThread&) = delete;

  // Waits up to `limit` of real time for NextBatch to return; true if it has.
  bool AwaitReturn(std::chrono::seconds limit = std::chrono::seconds(10)) EXCLUDES(mu_) {
    const auto give_up = std::chrono::steady_clock::now() + limit;
    MutexLock lock(&mu_);
    while (!returned_) {
      if (!returned_cv_.WaitUntil(&mu_, give_up)) return returned_;
    }
    return true;
  }
  bool returned() EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return returned_;
  }
  // What NextBatch returned (false: the instance must stop) and gave; read
  // them once AwaitReturn said it returned.
  bool got_work() EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return got_work_;
  }
  std::vector<InferenceRequest*> batch() EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return batch_;
  }

  // Returns true once the thread sleeps inside NextBatch (state S in
  // /proc: blocked on the scheduler's condition variable, since nothing else
  // there blocks); false if that does not happen within `limit` of real time.
  // For waits that do not go through a Clock (an idle instance waiting for
  // work); waits on a FakeClock are seen with FakeClock::AwaitWaiters.
  bool AwaitBlocked(std::chrono::seconds limit = std::chrono::seconds(10)) {
    const auto give_up = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < give_up) {
      const pid_t tid = tid_.load(std::memory_order_acquire);
      if (tid != 0 && ThreadState(tid) == 'S') return true;
      std::this_thread::yield();
    }
    return false;
  }

 private:
  // The scheduling state letter of thread `tid` of this process ('R', 'S', ...).
  static char ThreadState(pid_t tid) {
    std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
    std::stringstream text;
    text << stat.rdbuf();
    const std::string line = text.str();
    const size_t name_end = line.rfind(')');  // the thread name may hold spaces
    return name_end == std::string::npos || name_end + 2 >= line.size() ? '?'
                                                                        : line[name_end + 2];
  }

  void Run() EXCLUDES(mu_) {
    std::vector<InferenceRequest*> batch;
    // Set just before NextBatch: from here on only NextBatch can block.
    tid_.store(static_cast<pid_t>(syscall(SYS_gettid)), std::memory_order_release);
    const bool got_work = source_->NextBatch(index_, &batch);
    MutexLock lock(&mu_);
    got_work_ = got_work;
    batch_ = std::move(batch);
    returned_ = true;
    returned_cv_.SignalAll();
  }

  Scheduler* const scheduler_;
  BatchSource* const source_;
  const size_t index_;
  std::atomic<pid_t> tid_{0};
  Mutex mu_;
  CondVar returned_cv_;
  bool returned_ GUARDED_BY(mu_) = false;
  bool got_work_ GUARDED_BY(mu_) = false;
  std::vector<InferenceRequest*> batch_ GUARDED_BY(mu_);
  std::thread thread_;  // last: starts once everything above is built
};

}  // namespace inferd

#endif  // INFERD_CORE_TEST_UTIL_INSTANCE_THREAD_H_

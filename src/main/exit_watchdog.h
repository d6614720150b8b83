// Bounds how long the process takes to exit after SIGINT/SIGTERM
// (--exit-timeout-secs): a backend execution that never ends must not hold
// the exit, which waits for in-flight requests and then joins the threads
// that run them.
#ifndef INFERD_MAIN_EXIT_WATCHDOG_H_
#define INFERD_MAIN_EXIT_WATCHDOG_H_

#include <chrono>
#include <functional>
#include <thread>

#include "inferd/base/mutex.h"
#include "inferd/base/thread_annotations.h"

namespace inferd {

class ExitWatchdog {
 public:
  // Calls `on_timeout` on a thread of its own once `timeout` has passed,
  // unless Disarm() came first. `on_timeout` is expected to end the process.
  ExitWatchdog(std::chrono::steady_clock::duration timeout, std::function<void()> on_timeout);
  ~ExitWatchdog();  // disarms
  ExitWatchdog(const ExitWatchdog&) = delete;
  ExitWatchdog& operator=(const ExitWatchdog&) = delete;

  // The exit finished in time; `on_timeout` will not run (or has run).
  void Disarm() EXCLUDES(mu_);

 private:
  void Watch(std::chrono::steady_clock::time_point deadline) EXCLUDES(mu_);

  const std::function<void()> on_timeout_;
  Mutex mu_;
  CondVar disarmed_cv_;
  bool disarmed_ GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: starts after the members it reads
};

}  // namespace inferd

#endif  // INFERD_MAIN_EXIT_WATCHDOG_H_

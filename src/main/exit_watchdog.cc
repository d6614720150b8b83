#include "exit_watchdog.h"

#include <utility>

namespace inferd {

ExitWatchdog::ExitWatchdog(std::chrono::steady_clock::duration timeout,
                           std::function<void()> on_timeout)
    : on_timeout_(std::move(on_timeout)),
      thread_([this, deadline = std::chrono::steady_clock::now() + timeout] { Watch(deadline); }) {}

ExitWatchdog::~ExitWatchdog() {
  Disarm();
  thread_.join();
}

void ExitWatchdog::Disarm() {
  MutexLock lock(&mu_);
  disarmed_ = true;
  disarmed_cv_.SignalAll();
}

void ExitWatchdog::Watch(std::chrono::steady_clock::time_point deadline) {
  {
    MutexLock lock(&mu_);
    while (!disarmed_) {
      if (!disarmed_cv_.WaitUntil(&mu_, deadline)) break;
    }
    if (disarmed_) return;
  }
  on_timeout_();
}

}  // namespace inferd

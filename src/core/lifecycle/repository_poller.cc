#include "core/lifecycle/repository_poller.h"

namespace inferd {

RepositoryPoller::RepositoryPoller(std::function<void()> poll, std::chrono::seconds interval,
                                   const Clock& clock)
    : poll_(std::move(poll)),
      interval_ns_(std::chrono::nanoseconds(interval).count()),
      clock_(clock),
      thread_([this] { Run(); }) {}

RepositoryPoller::~RepositoryPoller() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  wake_.SignalAll();
  thread_.join();
}

void RepositoryPoller::Run() {
  MutexLock lock(&mu_);
  while (!stopping_) {
    const uint64_t next_poll = clock_.NowNs() + interval_ns_;
    while (!stopping_ && clock_.NowNs() < next_poll) clock_.WaitUntil(&wake_, &mu_, next_poll);
    if (stopping_) break;
    lock.Unlock();
    poll_();
    lock.Lock();
  }
}

}  // namespace inferd

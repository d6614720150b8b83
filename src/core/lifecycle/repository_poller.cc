#include "core/lifecycle/repository_poller.h"

#include "core/lifecycle/model_lifecycle.h"

namespace inferd {

RepositoryPoller::RepositoryPoller(ModelLifecycle& lifecycle, std::chrono::seconds interval)
    : lifecycle_(lifecycle), interval_(interval), thread_([this] { Run(); }) {}

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
    const auto next_poll = std::chrono::steady_clock::now() + interval_;
    while (!stopping_ && wake_.WaitUntil(&mu_, next_poll)) {
    }
    if (stopping_) break;
    lock.Unlock();
    lifecycle_.Poll();
    lock.Lock();
  }
}

}  // namespace inferd

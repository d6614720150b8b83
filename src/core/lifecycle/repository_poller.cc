#include "core/lifecycle/repository_poller.h"

#include "core/lifecycle/model_lifecycle.h"

namespace inferd {

RepositoryPoller::RepositoryPoller(ModelLifecycle& lifecycle, std::chrono::seconds interval)
    : lifecycle_(lifecycle), interval_(interval), thread_([this] { Run(); }) {}

RepositoryPoller::~RepositoryPoller() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void RepositoryPoller::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, interval_, [this] { return stopping_; })) {
    lock.unlock();
    lifecycle_.Poll();
    lock.lock();
  }
}

}  // namespace inferd

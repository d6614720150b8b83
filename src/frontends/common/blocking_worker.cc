// A single thread draining a queue of blocking tasks.
#include "common/blocking_worker.h"

#include <utility>

namespace inferd {

BlockingWorker::BlockingWorker() : thread_([this] { Run(); }) {}

BlockingWorker::~BlockingWorker() { Stop(); }

void BlockingWorker::Post(std::function<void()> task) {
  {
    MutexLock lock(&mu_);
    if (!stopping_) {
      tasks_.push_back(std::move(task));
      wake_.Signal();
      return;
    }
  }
  task();
}

void BlockingWorker::Stop() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
    wake_.Signal();
  }
  if (thread_.joinable()) thread_.join();
}

void BlockingWorker::Run() {
  MutexLock lock(&mu_);
  while (true) {
    while (!stopping_ && tasks_.empty()) wake_.Wait(&mu_);
    if (tasks_.empty()) return;  // stopping, and nothing left to run
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.Unlock();
    task();
    lock.Lock();
  }
}

}  // namespace inferd

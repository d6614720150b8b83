// A single thread draining a queue of blocking tasks.
#include "common/blocking_worker.h"

#include <utility>

namespace inferd {

BlockingWorker::BlockingWorker() : thread_([this] { Run(); }) {}

BlockingWorker::~BlockingWorker() { Stop(); }

void BlockingWorker::Post(std::function<void()> task) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_) {
      tasks_.push_back(std::move(task));
      wake_.notify_one();
      return;
    }
  }
  task();
}

void BlockingWorker::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    wake_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
}

void BlockingWorker::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
    if (tasks_.empty()) return;  // stopping, and nothing left to run
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task();
    lock.lock();
  }
}

}  // namespace inferd

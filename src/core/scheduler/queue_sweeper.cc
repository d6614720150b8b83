#include "core/scheduler/queue_sweeper.h"

#include <chrono>

#include "core/common/clock.h"

namespace inferd {

QueueSweeper& QueueSweeper::Instance() {
  static QueueSweeper sweeper;
  return sweeper;
}

QueueSweeper::~QueueSweeper() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void QueueSweeper::Register(Queue* queue) {
  std::lock_guard<std::mutex> lock(mu_);
  registered_.insert(queue);
}

void QueueSweeper::Schedule(Queue* queue, uint64_t when_ns) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || registered_.count(queue) == 0) return;
    auto [it, added] = due_.try_emplace(queue, when_ns);
    if (!added) {
      if (it->second <= when_ns) return;
      it->second = when_ns;
    }
    if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
  }
  changed_.notify_one();
}

void QueueSweeper::Forget(Queue* queue) {
  std::unique_lock<std::mutex> lock(mu_);
  registered_.erase(queue);
  swept_.wait(lock, [&] { return sweeping_ != queue; });
  // After the wait: a sweep that just ended may have scheduled it again.
  due_.erase(queue);
}

void QueueSweeper::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    // The number of queues with deadlines is small (models with timeouts).
    auto next = due_.end();
    for (auto it = due_.begin(); it != due_.end(); ++it) {
      if (next == due_.end() || it->second < next->second) next = it;
    }
    if (next == due_.end()) {
      changed_.wait(lock);
      continue;
    }
    const uint64_t now = NowNs();
    if (next->second > now) {
      changed_.wait_for(lock, std::chrono::nanoseconds(next->second - now));
      continue;
    }
    Queue* queue = next->first;
    due_.erase(next);
    sweeping_ = queue;
    // Unlocked: the queue takes its own lock and may Schedule again.
    lock.unlock();
    const uint64_t again = queue->SweepExpired(now);
    lock.lock();
    sweeping_ = nullptr;
    swept_.notify_all();
    if (again != 0 && registered_.count(queue) != 0) {
      auto [it, added] = due_.try_emplace(queue, again);
      if (!added && again < it->second) it->second = again;
    }
  }
}

}  // namespace inferd

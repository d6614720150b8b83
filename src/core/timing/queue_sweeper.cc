#include "core/timing/queue_sweeper.h"

namespace inferd {

QueueSweeper::~QueueSweeper() {
  std::thread thread;
  {
    MutexLock lock(&mu_);
    stopping_ = true;
    thread.swap(thread_);
  }
  changed_.SignalAll();
  if (thread.joinable()) thread.join();
}

void QueueSweeper::Register(Queue* queue) {
  MutexLock lock(&mu_);
  registered_.insert(queue);
}

void QueueSweeper::Schedule(Queue* queue, uint64_t when_ns) {
  {
    MutexLock lock(&mu_);
    if (stopping_ || registered_.count(queue) == 0) return;
    auto [it, added] = due_.try_emplace(queue, when_ns);
    if (!added) {
      if (it->second <= when_ns) return;
      it->second = when_ns;
    }
    if (!thread_.joinable()) thread_ = std::thread([this] { Run(); });
  }
  changed_.Signal();
}

void QueueSweeper::Forget(Queue* queue) {
  MutexLock lock(&mu_);
  registered_.erase(queue);
  while (sweeping_ == queue) swept_.Wait(&mu_);
  // After the wait: a sweep that just ended may have scheduled it again.
  due_.erase(queue);
}

void QueueSweeper::Run() {
  MutexLock lock(&mu_);
  while (!stopping_) {
    // The number of queues with deadlines is small (models with timeouts).
    auto next = due_.end();
    for (auto it = due_.begin(); it != due_.end(); ++it) {
      if (next == due_.end() || it->second < next->second) next = it;
    }
    if (next == due_.end()) {
      changed_.Wait(&mu_);
      continue;
    }
    const uint64_t now = clock_.NowNs();
    if (next->second > now) {
      clock_.WaitUntil(&changed_, &mu_, next->second);
      continue;
    }
    Queue* queue = next->first;
    due_.erase(next);
    sweeping_ = queue;
    // Unlocked: the queue takes its own lock and may Schedule again.
    lock.Unlock();
    const uint64_t again = queue->SweepExpired(now);
    lock.Lock();
    sweeping_ = nullptr;
    swept_.SignalAll();
    if (again != 0 && registered_.count(queue) != 0) {
      auto [it, added] = due_.try_emplace(queue, again);
      if (!added && again < it->second) it->second = again;
    }
  }
}

}  // namespace inferd

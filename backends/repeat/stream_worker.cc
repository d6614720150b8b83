// The worker's loop: wait for the earliest due stream, step it, requeue it.
#include "stream_worker.h"

#include <utility>

namespace inferd::repeat {

StreamWorker::StreamWorker() : thread_([this] { Run(); }) {}

StreamWorker::~StreamWorker() { Stop(); }

void StreamWorker::Add(std::unique_ptr<Stream> stream, Clock::time_point due) {
  MutexLock lock(&mu_);
  const bool first = due_.empty() || due < due_.begin()->first;
  due_.emplace(due, std::move(stream));
  // Only a new earliest stream changes how long the worker sleeps.
  if (first) wake_.Signal();
}

void StreamWorker::Stop() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
    wake_.Signal();
  }
  if (thread_.joinable()) thread_.join();
  std::multimap<Clock::time_point, std::unique_ptr<Stream>> due;
  std::vector<std::unique_ptr<Stream>> held;
  {
    MutexLock lock(&mu_);
    due.swap(due_);
    held.swap(held_);
  }
  // Destroyed outside the lock: deleting a sender may end its request at once.
}

void StreamWorker::Run() {
  MutexLock lock(&mu_);
  while (!stopping_) {
    if (due_.empty()) {
      wake_.Wait(&mu_);
      continue;
    }
    const Clock::time_point now = Clock::now();
    auto first = due_.begin();
    if (first->first > now) {
      wake_.WaitUntil(&mu_, first->first);
      continue;
    }
    std::unique_ptr<Stream> stream = std::move(first->second);
    due_.erase(first);
    lock.Unlock();
    Clock::time_point next;
    const Stream::Next what = stream->Step(now, &next);
    if (what == Stream::Next::kEnded) stream.reset();  // deletes its sender, unlocked
    lock.Lock();
    if (what == Stream::Next::kWait) due_.emplace(next, std::move(stream));
    if (what == Stream::Next::kHold) held_.push_back(std::move(stream));
  }
}

}  // namespace inferd::repeat

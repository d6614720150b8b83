#include "core/scheduler/default_scheduler.h"

#include "core/infer/inference_request.h"

namespace inferd {

DefaultScheduler::~DefaultScheduler() { Stop(); }

Status DefaultScheduler::Enqueue(InferenceRequest* request) {
  {
    MutexLock lock(&mu_);
    if (stopping_) {
      return Status::Unavailable("model '" + request->model_name() + "' is shutting down");
    }
    queue_.push_back(request);
  }
  work_ready_.Signal();
  return Status::Ok();
}

size_t DefaultScheduler::QueuedCount() const {
  MutexLock lock(&mu_);
  return queue_.size();
}

size_t DefaultScheduler::InflightCount() const {
  MutexLock lock(&mu_);
  return queue_.size() + executing_.load(std::memory_order_relaxed);
}

bool DefaultScheduler::NextBatch(size_t instance, std::vector<InferenceRequest*>* batch) {
  MutexLock lock(&mu_);
  while (!stopping_ && queue_.empty()) work_ready_.Wait(&mu_);
  if (queue_.empty()) return false;
  batch->push_back(queue_.front());
  queue_.pop_front();
  executing_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void DefaultScheduler::BatchDone(size_t instance, size_t request_count) {
  executing_.fetch_sub(request_count, std::memory_order_relaxed);
}

void DefaultScheduler::Stop() {
  std::deque<InferenceRequest*> abandoned;
  {
    MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
    abandoned.swap(queue_);
  }
  work_ready_.SignalAll();
  for (InferenceRequest* request : abandoned) {
    request->RespondWithError(
        Status::Unavailable("model '" + request->model_name() + "' was unloaded before the "
                            "request could run"));
    request->Release();
  }
}

}  // namespace inferd

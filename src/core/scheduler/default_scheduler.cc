#include "core/scheduler/default_scheduler.h"

#include "core/infer/inference_request.h"
#include "core/model/model_instance.h"

namespace inferd {

DefaultScheduler::DefaultScheduler(std::vector<ModelInstance*> instances)
    : instances_(std::move(instances)) {
  for (ModelInstance* instance : instances_) instance->Start(this);
}

DefaultScheduler::~DefaultScheduler() { Stop(); }

Status DefaultScheduler::Enqueue(InferenceRequest* request) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_) {
      return Status::Unavailable("model '" + request->model_name() + "' is shutting down");
    }
    queue_.push_back(request);
  }
  work_ready_.notify_one();
  return Status::Ok();
}

size_t DefaultScheduler::QueuedCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

size_t DefaultScheduler::InflightCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size() + executing_.load(std::memory_order_relaxed);
}

bool DefaultScheduler::NextBatch(ModelInstance& instance, std::vector<InferenceRequest*>* batch) {
  std::unique_lock<std::mutex> lock(mu_);
  work_ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
  if (queue_.empty()) return false;
  batch->push_back(queue_.front());
  queue_.pop_front();
  executing_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void DefaultScheduler::BatchDone(ModelInstance& instance, size_t request_count) {
  executing_.fetch_sub(request_count, std::memory_order_relaxed);
}

void DefaultScheduler::Stop() {
  if (stopped_) return;
  stopped_ = true;
  std::deque<InferenceRequest*> abandoned;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    abandoned.swap(queue_);
  }
  work_ready_.notify_all();
  for (InferenceRequest* request : abandoned) {
    request->RespondWithError(
        Status::Unavailable("model '" + request->model_name() + "' was unloaded before the "
                            "request could run"));
    request->Release();
  }
  for (ModelInstance* instance : instances_) instance->Join();
}

}  // namespace inferd

#include "core/scheduler/default_scheduler.h"

#include "core/infer/inference_request.h"
#include "core/timing/clock.h"

namespace inferd {

DefaultScheduler::DefaultScheduler(size_t instances, const Clock* clock, CallerExecutor* caller)
    : clock_(clock),
      caller_(clock != nullptr ? caller : nullptr),
      instance_count_(instances),
      batch_start_ns_(new uint64_t[instances]()),
      may_run_on_caller_(instances, false),
      caller_batches_(new std::vector<InferenceRequest*>[instances]),
      wake_(new CondVar[instances]),
      instances_(instances) {
  for (size_t i = 0; i < instance_count_; ++i) {
    may_run_on_caller_[i] = caller_ != nullptr && caller_->MayExecuteOnCaller(i);
  }
}

DefaultScheduler::~DefaultScheduler() { Stop(); }

Status DefaultScheduler::Enqueue(InferenceRequest* request) {
  size_t instance = 0;
  {
    MutexLock lock(&mu_);
    if (stopping_) {
      return Status::Unavailable("model '" + request->model_name() + "' is shutting down");
    }
    if (!ClaimForCaller(*request, &instance)) {
      queue_.push_back(request);
      WakeOne();
      return Status::Ok();
    }
  }
  ExecuteOnCaller(instance, request);
  return Status::Ok();
}

bool DefaultScheduler::ClaimForCaller(const InferenceRequest& request, size_t* instance) {
  // Never ahead of a queued request, and never before the model has shown
  // its executions to be short.
  if (caller_ == nullptr || !request.may_execute_on_caller || !queue_.empty() ||
      !recent_.Short()) {
    return false;
  }
  for (size_t i = 0; i < instance_count_; ++i) {
    InstanceState& candidate = instances_[i];
    if (candidate.waiting && !candidate.claimed && may_run_on_caller_[i]) {
      candidate.claimed = true;
      ++claimed_;
      executing_.fetch_add(1, std::memory_order_relaxed);
      *instance = i;
      return true;
    }
  }
  return false;
}

void DefaultScheduler::ExecuteOnCaller(size_t instance, InferenceRequest* request) {
  const uint64_t start_ns = clock_->NowNs();
  std::vector<InferenceRequest*>& batch = caller_batches_[instance];
  batch.assign(1, request);
  caller_->ExecuteOnCaller(instance, batch);
  recent_.Record(clock_->NowNs() - start_ns);
  executing_.fetch_sub(1, std::memory_order_relaxed);
  MutexLock lock(&mu_);
  InstanceState& done = instances_[instance];
  done.claimed = false;
  if (--claimed_ == 0 && stopping_) claims_ended_.SignalAll();
  // What queued meanwhile waited for this instance (or for any): hand it on.
  if (!queue_.empty() && done.waiting) {
    done.waiting = false;
    wake_[instance].Signal();
  }
}

void DefaultScheduler::WakeOne() {
  for (size_t i = 0; i < instance_count_; ++i) {
    InstanceState& candidate = instances_[i];
    if (candidate.waiting && !candidate.claimed) {
      candidate.waiting = false;
      wake_[i].Signal();
      return;
    }
  }
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
  while (!stopping_ && (queue_.empty() || instances_[instance].claimed)) {
    instances_[instance].waiting = true;
    wake_[instance].Wait(&mu_);
  }
  instances_[instance].waiting = false;
  if (queue_.empty()) return false;
  batch->push_back(queue_.front());
  queue_.pop_front();
  executing_.fetch_add(1, std::memory_order_relaxed);
  if (clock_ != nullptr) batch_start_ns_[instance] = clock_->NowNs();
  // More waiting than this instance takes: another idle one may help.
  if (!queue_.empty()) WakeOne();
  return true;
}

void DefaultScheduler::BatchDone(size_t instance, size_t request_count) {
  if (clock_ != nullptr) recent_.Record(clock_->NowNs() - batch_start_ns_[instance]);
  executing_.fetch_sub(request_count, std::memory_order_relaxed);
}

void DefaultScheduler::Stop() {
  std::deque<InferenceRequest*> abandoned;
  {
    MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
    abandoned.swap(queue_);
    for (size_t i = 0; i < instance_count_; ++i) wake_[i].SignalAll();
    while (claimed_ > 0) claims_ended_.Wait(&mu_);
  }
  for (InferenceRequest* request : abandoned) {
    request->RespondWithError(
        Status::Unavailable("model '" + request->model_name() + "' was unloaded before the "
                            "request could run"));
    request->Release();
  }
}

}  // namespace inferd

#include "core/scheduler/dynamic_batcher.h"

#include <algorithm>
#include <numeric>

#include "core/infer/inference_request.h"

namespace inferd {
namespace {

// Rows a request contributes to a batch.
int64_t Rows(const InferenceRequest& request) {
  return request.batch_size > 0 ? static_cast<int64_t>(request.batch_size) : 1;
}

// Answers and releases requests the queue dropped.
void Drop(const std::vector<InferenceRequest*>& requests, const char* why, Status::Code code) {
  for (InferenceRequest* request : requests) {
    request->RespondWithError(
        Status(code, "request for model '" + request->model_name() + "' " + why));
    request->Release();
  }
}

}  // namespace

DynamicBatcher::DynamicBatcher(const inference::ModelConfig& config, QueueSweeper* sweeper,
                               bool full_is_exhausted)
    : sweeper_(sweeper),
      clock_(sweeper->clock()),
      queues_(config.dynamic_batching(), full_is_exhausted) {
  const auto& batching = config.dynamic_batching();
  rules_.max_batch_size = std::max<int64_t>(1, config.max_batch_size());
  for (int32_t size : batching.preferred_batch_size()) {
    if (size <= rules_.max_batch_size) rules_.preferred_sizes.push_back(size);
  }
  std::sort(rules_.preferred_sizes.begin(), rules_.preferred_sizes.end());
  max_queue_delay_ns_ = batching.max_queue_delay_microseconds() * 1000;
  for (const auto& input : config.input()) {
    if (input.allow_ragged_batch()) ragged_inputs_.push_back(input.name());
  }
  if (batching.preserve_ordering()) orderer_ = std::make_unique<ResponseOrderer>();
  sweeper_->Register(this);
}

DynamicBatcher::~DynamicBatcher() { Stop(); }

Status DynamicBatcher::Enqueue(InferenceRequest* request) {
  bool wake = true;
  {
    MutexLock lock(&mu_);
    if (stopping_) {
      return Status::Unavailable("model '" + request->model_name() + "' is shutting down");
    }
    uint64_t deadline = 0;
    RETURN_IF_ERROR(queues_.Push(request, request->queue_start_ns, &deadline));
    // Numbered under mu_, before any instance can take it: numbers follow queue order.
    if (orderer_) orderer_->Adopt(request);
    // A cancel then asks the sweeper to drop it at once.
    request->WaitIn(sweeper_, this);
    if (deadline != 0 && (sweep_at_ns_ == 0 || deadline < sweep_at_ns_)) {
      sweep_at_ns_ = deadline;
      sweeper_->Schedule(this, deadline);
    }
    wake = WakesWaiters(*request, deadline);
  }
  if (wake) changed_.Signal();
  return Status::Ok();
}

bool DynamicBatcher::WakesWaiters(InferenceRequest& request, uint64_t deadline_ns) {
  if (waiting_.first == nullptr) return true;
  waiting_.rows_to_go -= Rows(request);
  const bool same_choice = waiting_.rows_to_go > 0 && queues_.InArrivalOrder() &&
                           (deadline_ns == 0 || deadline_ns >= waiting_.wake_ns) &&
                           SharesBatch(*waiting_.first, request);
  if (same_choice) return false;
  waiting_ = {};
  return true;
}

void DynamicBatcher::RememberWait(const std::vector<const QueuedRequest*>& order,
                                  const std::vector<int64_t>& rows, uint64_t wake_ns) {
  // A batch waits only when it holds every queued request; anything else
  // keeps the plain wake-up on every request.
  if (CompatiblePrefix(order) != order.size() || !queues_.InArrivalOrder()) return;
  const int64_t total = std::accumulate(rows.begin(), rows.end(), int64_t{0});
  waiting_ = {order.front()->request, RowsBeforeChoiceChanges(total, rules_), wake_ns};
}

size_t DynamicBatcher::QueuedCount() const {
  MutexLock lock(&mu_);
  return queues_.size();
}

size_t DynamicBatcher::InflightCount() const {
  MutexLock lock(&mu_);
  return queues_.size() + executing_.load(std::memory_order_relaxed);
}

size_t DynamicBatcher::CompatiblePrefix(const std::vector<const QueuedRequest*>& order) const {
  if (order.empty()) return 0;
  const InferenceRequest& first = *order[0]->request;
  size_t count = 1;
  while (count < order.size() && SharesBatch(first, *order[count]->request)) ++count;
  return count;
}

bool DynamicBatcher::SharesBatch(const InferenceRequest& first,
                                 InferenceRequest& other) const {
  for (const InputTensor& input : first.inputs()) {
    if (std::find(ragged_inputs_.begin(), ragged_inputs_.end(), input.name) !=
        ragged_inputs_.end()) {
      continue;
    }
    const InputTensor* peer = other.FindInput(input.name);
    // Compare the per-row dims (everything after the batch dimension).
    if (peer == nullptr || peer->shape.size() != input.shape.size() ||
        !std::equal(input.shape.begin() + (first.batch_size > 0 ? 1 : 0), input.shape.end(),
                    peer->shape.begin() + (first.batch_size > 0 ? 1 : 0))) {
      return false;
    }
  }
  return true;
}

bool DynamicBatcher::NextBatch(size_t instance, std::vector<InferenceRequest*>* batch) {
  std::vector<InferenceRequest*> cancelled, timed_out;
  MutexLock lock(&mu_);
  while (true) {
    waiting_ = {};  // awake: this instance looks at the queue itself
    const uint64_t now = clock_.NowNs();
    queues_.Expire(now, &cancelled, &timed_out);
    if (!cancelled.empty() || !timed_out.empty()) {
      // Answer dropped requests without holding the lock.
      lock.Unlock();
      Drop(cancelled, "was cancelled", Status::Code::kCancelled);
      Drop(timed_out, "timed out in the queue", Status::Code::kUnavailable);
      cancelled.clear();
      timed_out.clear();
      lock.Lock();
      continue;
    }
    if (queues_.empty()) {
      if (stopping_) return false;
      changed_.Wait(&mu_);
      continue;
    }
    std::vector<const QueuedRequest*> order = queues_.InOrder();
    std::vector<int64_t> rows;
    rows.reserve(order.size());
    for (const QueuedRequest* queued : order) rows.push_back(Rows(*queued->request));
    // The delay counts from the oldest request that could join, whatever its level.
    const size_t compatible = CompatiblePrefix(order);
    uint64_t oldest = order.front()->enqueue_ns;
    for (size_t i = 0; i < compatible; ++i) oldest = std::min(oldest, order[i]->enqueue_ns);
    const bool delay_expired = stopping_ || now >= oldest + max_queue_delay_ns_;
    BatchChoice choice = ChooseBatch(rows, compatible, rules_, delay_expired);
    if (choice.send_now) {
      *batch = queues_.PopFront(choice.request_count);
      executing_.fetch_add(batch->size(), std::memory_order_relaxed);
      const bool more = !queues_.empty();
      lock.Unlock();
      if (more) changed_.Signal();  // another free instance may take the rest
      return true;
    }
    // Wait for a new request, the queue delay, or the next timeout.
    uint64_t wake = oldest + max_queue_delay_ns_;
    const uint64_t deadline = queues_.NextDeadline();
    if (deadline != 0) wake = std::min(wake, deadline);
    RememberWait(order, rows, wake);
    clock_.WaitUntil(&changed_, &mu_, wake);
  }
}

uint64_t DynamicBatcher::SweepExpired(uint64_t now_ns) {
  std::vector<InferenceRequest*> cancelled, timed_out;
  uint64_t next = 0;
  {
    MutexLock lock(&mu_);
    queues_.Expire(now_ns, &cancelled, &timed_out);
    next = queues_.NextDeadline();
    sweep_at_ns_ = next;
    waiting_ = {};  // its first request may be among those dropped
  }
  Drop(cancelled, "was cancelled", Status::Code::kCancelled);
  Drop(timed_out, "timed out in the queue", Status::Code::kUnavailable);
  return next;
}

void DynamicBatcher::BatchDone(size_t instance, size_t request_count) {
  executing_.fetch_sub(request_count, std::memory_order_relaxed);
}

void DynamicBatcher::Stop() {
  std::vector<InferenceRequest*> abandoned;
  {
    MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
    abandoned = queues_.TakeAll();
    waiting_ = {};
  }
  // No Enqueue schedules it any more (stopping_); a sweep under way ends first.
  sweeper_->Forget(this);
  changed_.SignalAll();
  Drop(abandoned, "was dropped: the model was unloaded before it could run",
       Status::Code::kUnavailable);
}

}  // namespace inferd

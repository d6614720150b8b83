#include "core/scheduler/request_queues.h"

#include <algorithm>

#include "core/infer/bound_model.h"
#include "core/infer/inference_request.h"
#include "core/stats/model_statistics.h"

namespace inferd {

RequestQueues::RequestQueues(const inference::ModelDynamicBatching& batching,
                             bool full_is_exhausted)
    : full_is_exhausted_(full_is_exhausted) {
  const uint32_t count = std::max<uint32_t>(1, batching.priority_levels());
  default_level_ = batching.default_priority_level() > 0 ? batching.default_priority_level() : 1;
  levels_.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    const auto found = batching.priority_queue_policy().find(i + 1);
    const inference::ModelQueuePolicy& policy = found != batching.priority_queue_policy().end()
                                                    ? found->second
                                                    : batching.default_queue_policy();
    Level& level = levels_[i];
    level.max_size = policy.max_queue_size();
    level.default_timeout_us = policy.default_timeout_microseconds();
    level.allow_override = policy.allow_timeout_override();
    level.reject = policy.timeout_action() == inference::ModelQueuePolicy::REJECT;
  }
}

uint32_t RequestQueues::PriorityOf(const InferenceRequest& request) const {
  // As Triton: 0 or a level the model does not have means the default level.
  return request.priority == 0 || request.priority > levels_.size() ? default_level_
                                                                    : request.priority;
}

Status RequestQueues::Push(InferenceRequest* request, uint64_t now_ns, uint64_t* deadline_ns) {
  *deadline_ns = 0;
  const uint32_t priority = PriorityOf(*request);
  Level& level = levels_[priority - 1];
  // Delayed requests are still held, as Triton counts them.
  if (level.max_size > 0 && level.queue.size() + level.delayed >= level.max_size) {
    if (request->model() != nullptr) {
      request->model()->stats().rejected.Count(RejectReason::kQueueFull);
    }
    std::string why = "model '" + request->model_name() + "': the queue of priority level " +
                      std::to_string(priority) + " is full (max_queue_size " +
                      std::to_string(level.max_size) + ")";
    if (full_is_exhausted_) return Status::ResourceExhausted(std::move(why), 0);
    return Status::Unavailable(std::move(why));
  }
  uint64_t timeout_us = level.default_timeout_us;
  // A request may shorten its level's timeout, never extend it (Triton's rule);
  // with no default it may set one.
  if (level.allow_override && request->timeout_us > 0 &&
      (timeout_us == 0 || request->timeout_us < timeout_us)) {
    timeout_us = request->timeout_us;
  }
  *deadline_ns = timeout_us ? now_ns + timeout_us * 1000 : 0;
  level.queue.push_back({request, now_ns, *deadline_ns, level.reject});
  ++size_;
  return Status::Ok();
}

void RequestQueues::Expire(uint64_t now_ns, std::vector<InferenceRequest*>* cancelled,
                           std::vector<InferenceRequest*>* timed_out) {
  auto sweep = [&](std::deque<QueuedRequest>& queue, bool may_delay) {
    std::erase_if(queue, [&](QueuedRequest& queued) {
      if (queued.request->cancelled()) {
        cancelled->push_back(queued.request);
        if (!may_delay) --levels_[PriorityOf(*queued.request) - 1].delayed;  // it left delayed_
      } else if (queued.deadline_ns != 0 && queued.deadline_ns <= now_ns) {
        if (queued.reject_on_timeout) {
          timed_out->push_back(queued.request);
        } else if (may_delay) {
          queued.deadline_ns = 0;  // a delayed request waits without limit
          delayed_.push_back(queued);
          ++levels_[PriorityOf(*queued.request) - 1].delayed;
        } else {
          return false;
        }
      } else {
        return false;
      }
      --size_;
      return true;
    });
  };
  for (Level& level : levels_) sweep(level.queue, true);
  sweep(delayed_, false);
  // Requests moved to delayed_ were counted out by the sweep; recount.
  size_t in_levels = 0;
  for (const Level& level : levels_) in_levels += level.queue.size();
  size_ = in_levels + delayed_.size();
}

std::vector<const QueuedRequest*> RequestQueues::InOrder() const {
  std::vector<const QueuedRequest*> order;
  order.reserve(size_);
  for (const Level& level : levels_) {
    for (const QueuedRequest& queued : level.queue) order.push_back(&queued);
  }
  for (const QueuedRequest& queued : delayed_) order.push_back(&queued);
  return order;
}

std::vector<InferenceRequest*> RequestQueues::PopFront(size_t count) {
  std::vector<InferenceRequest*> taken;
  taken.reserve(count);
  auto take = [&](std::deque<QueuedRequest>& queue, bool delayed) {
    while (taken.size() < count && !queue.empty()) {
      taken.push_back(queue.front().request);
      if (delayed) --levels_[PriorityOf(*queue.front().request) - 1].delayed;
      queue.pop_front();
      --size_;
    }
  };
  for (Level& level : levels_) take(level.queue, false);
  take(delayed_, true);
  return taken;
}

std::vector<InferenceRequest*> RequestQueues::TakeAll() { return PopFront(size_); }

uint64_t RequestQueues::NextDeadline() const {
  uint64_t next = 0;
  for (const Level& level : levels_) {
    for (const QueuedRequest& queued : level.queue) {
      if (queued.deadline_ns != 0 && (next == 0 || queued.deadline_ns < next)) {
        next = queued.deadline_ns;
      }
    }
  }
  return next;
}

}  // namespace inferd

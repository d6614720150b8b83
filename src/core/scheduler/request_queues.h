// The dynamic batcher's queues: one per priority level (1 is served first),
// each with its ModelQueuePolicy (max_queue_size, timeout and what to do when
// it expires), plus the requests whose timeout expired with action DELAY,
// served only when nothing else waits. Not thread-safe; DynamicBatcher's mu_
// guards it.
#ifndef INFERD_CORE_SCHEDULER_REQUEST_QUEUES_H_
#define INFERD_CORE_SCHEDULER_REQUEST_QUEUES_H_

#include <cstdint>
#include <deque>
#include <vector>

#include "inferd/base/status.h"
#include "model_config.pb.h"

namespace inferd {

class InferenceRequest;

struct QueuedRequest {
  InferenceRequest* request = nullptr;
  uint64_t enqueue_ns = 0;
  uint64_t deadline_ns = 0;  // 0: no timeout
  bool reject_on_timeout = true;
};

class RequestQueues {
 public:
  // Levels and policies from `batching`; a model without priority levels has
  // one. `full_is_exhausted`: see Push.
  explicit RequestQueues(const inference::ModelDynamicBatching& batching,
                         bool full_is_exhausted = false);

  // Queues `request` at its priority level (0 = default level) and sets
  // *deadline_ns to when its timeout runs out (0: none). UNAVAILABLE when that
  // level's queue is full (RESOURCE_EXHAUSTED with `full_is_exhausted`, whose
  // retry advice the model adds), counted in its model's rejections.
  Status Push(InferenceRequest* request, uint64_t now_ns, uint64_t* deadline_ns);

  // Takes out every request that was cancelled or whose timeout with action
  // REJECT expired (into `cancelled` / `timed_out`); moves the
  // ones expired with action DELAY behind all others.
  void Expire(uint64_t now_ns, std::vector<InferenceRequest*>* cancelled,
              std::vector<InferenceRequest*>* timed_out);

  // The queued requests in serving order (by level, then arrival).
  std::vector<const QueuedRequest*> InOrder() const;
  // Removes the first `count` requests of InOrder() and returns them.
  std::vector<InferenceRequest*> PopFront(size_t count);
  // Everything still queued, emptied.
  std::vector<InferenceRequest*> TakeAll();

  // Whether serving order is arrival order (one level, nothing delayed): a
  // request pushed now is served after every queued one.
  bool InArrivalOrder() const { return levels_.size() == 1 && delayed_.empty(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The earliest timeout among queued requests, or 0.
  uint64_t NextDeadline() const;

 private:
  struct Level {
    std::deque<QueuedRequest> queue;
    size_t delayed = 0;     // this level's requests in delayed_ (count towards max_size)
    uint64_t max_size = 0;  // 0: unlimited
    uint64_t default_timeout_us = 0;
    bool allow_override = false;
    bool reject = true;
  };
  // The priority level `request` waits at (1 = levels_[0]).
  uint32_t PriorityOf(const InferenceRequest& request) const;

  std::vector<Level> levels_;  // levels_[0] is priority 1
  uint32_t default_level_ = 1;
  bool full_is_exhausted_ = false;
  std::deque<QueuedRequest> delayed_;
  size_t size_ = 0;
};

}  // namespace inferd

#endif  // INFERD_CORE_SCHEDULER_REQUEST_QUEUES_H_

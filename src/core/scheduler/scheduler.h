// The scheduler seam: every model version has one scheduler that takes its
// requests and decides when and where they execute. The default scheduler,
// dynamic batcher, sequence batcher and ensemble scheduler implement it.
#ifndef INFERD_CORE_SCHEDULER_SCHEDULER_H_
#define INFERD_CORE_SCHEDULER_SCHEDULER_H_

#include <cstddef>
#include <vector>

#include "inferd/base/status.h"

namespace inferd {

class InferenceRequest;

class Scheduler {
 public:
  virtual ~Scheduler() = default;

  // Queues a validated request. On error nothing was queued and the caller
  // keeps the request (it is never deleted by a scheduler in any case).
  virtual Status Enqueue(InferenceRequest* request) = 0;
  // Requests queued or executing.
  virtual size_t InflightCount() const = 0;
  // Requests queued, not yet handed to an instance (the pending-requests gauge).
  virtual size_t QueuedCount() const = 0;
  // Refuses new requests, fails the queued ones with UNAVAILABLE, and tells
  // every instance waiting in NextBatch to stop (the model joins their
  // threads). Idempotent.
  virtual void Stop() = 0;
};

// Where model instance threads take their work from. Schedulers that execute
// on instances implement it; the rate limiter will sit behind it. An instance
// is named by its index among the scheduler's instances (0 .. count-1), so a
// scheduler needs nothing of the instance itself and a test can play one.
class BatchSource {
 public:
  virtual ~BatchSource() = default;
  // Blocks until there is work for instance `instance` and fills `batch` with
  // it; returns false when the instance must stop.
  virtual bool NextBatch(size_t instance, std::vector<InferenceRequest*>* batch) = 0;
  // Called when the instance finished executing what NextBatch gave it.
  virtual void BatchDone(size_t instance, size_t request_count) = 0;
};

}  // namespace inferd

#endif  // INFERD_CORE_SCHEDULER_SCHEDULER_H_

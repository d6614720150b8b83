// The dynamic batcher: requests of a model wait in priority queues and a free
// instance takes the next batch formed by BatchRules (preferred sizes, queue
// delay, max_batch_size, shape compatibility). Queue policies reject or defer
// requests that wait too long, also while every instance is busy (see
// QueueSweeper); cancelled requests are dropped. Thread-safe.
#ifndef INFERD_CORE_SCHEDULER_DYNAMIC_BATCHER_H_
#define INFERD_CORE_SCHEDULER_DYNAMIC_BATCHER_H_

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "core/scheduler/batch_rules.h"
#include "core/scheduler/request_queues.h"
#include "core/scheduler/response_orderer.h"
#include "core/scheduler/scheduler.h"
#include "core/timing/clock.h"
#include "core/timing/queue_sweeper.h"
#include "inferd/base/mutex.h"
#include "model_config.pb.h"

namespace inferd {

class DynamicBatcher : public Scheduler, public BatchSource, private ExpiringQueue {
 public:
  // Batches by `config`'s dynamic_batching, timing with the sweeper's clock;
  // `sweeper` (the server's) must outlive the batcher. `full_is_exhausted`:
  // a full queue refuses with RESOURCE_EXHAUSTED (admission control is on)
  // instead of Triton's UNAVAILABLE.
  DynamicBatcher(const inference::ModelConfig& config, QueueSweeper* sweeper,
                 bool full_is_exhausted = false);
  ~DynamicBatcher() override;

  Status Enqueue(InferenceRequest* request) override EXCLUDES(mu_);
  size_t InflightCount() const override EXCLUDES(mu_);
  size_t QueuedCount() const override EXCLUDES(mu_);
  void Stop() override EXCLUDES(mu_);

  bool NextBatch(size_t instance, std::vector<InferenceRequest*>* batch) override EXCLUDES(mu_);
  void BatchDone(size_t instance, size_t request_count) override;

 private:
  uint64_t SweepExpired(uint64_t now_ns) override EXCLUDES(mu_);

  // How many queued requests, from the front, may join the first one's batch.
  size_t CompatiblePrefix(const std::vector<const QueuedRequest*>& order) const;
  // Whether `other` may join `first`'s batch: the same per-row shapes, ragged
  // inputs aside.
  bool SharesBatch(const InferenceRequest& first, InferenceRequest& other) const;

  // What the instances waiting for a batch to fill decided, so that Enqueue
  // wakes them only when a new request could change it: waking one for every
  // request costs a thread switch and a look at the whole queue, for nothing
  // until the batch is full (64 of them per batch of 64 single rows).
  struct Waiting {
    const InferenceRequest* first = nullptr;  // the batch's first; null: wake on every request
    int64_t rows_to_go = 0;                   // rows the batch needs before it could go
    uint64_t wake_ns = 0;                     // when the waiters wake anyway
  };
  // Records the wait on `order` (every queued request, one waiting batch).
  void RememberWait(const std::vector<const QueuedRequest*>& order,
                    const std::vector<int64_t>& rows, uint64_t wake_ns) REQUIRES(mu_);
  // Whether `request`, just queued with `deadline_ns`, may change what the
  // waiting instances decided; counts its rows towards the batch.
  bool WakesWaiters(InferenceRequest& request, uint64_t deadline_ns) REQUIRES(mu_);

  // Constant after construction.
  QueueSweeper* const sweeper_;
  const Clock& clock_;
  BatchRules rules_;
  uint64_t max_queue_delay_ns_ = 0;
  std::vector<std::string> ragged_inputs_;  // inputs that allow ragged batching
  std::unique_ptr<ResponseOrderer> orderer_;  // set when preserve_ordering

  std::atomic<size_t> executing_{0};
  mutable Mutex mu_;
  CondVar changed_;
  RequestQueues queues_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  // The earliest time the QueueSweeper will call back; 0: none scheduled.
  uint64_t sweep_at_ns_ GUARDED_BY(mu_) = 0;
  Waiting waiting_ GUARDED_BY(mu_);
};

}  // namespace inferd

#endif  // INFERD_CORE_SCHEDULER_DYNAMIC_BATCHER_H_

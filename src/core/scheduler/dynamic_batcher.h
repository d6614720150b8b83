// The dynamic batcher: requests of a model wait in priority queues and a free
// instance takes the next batch formed by BatchRules (preferred sizes, queue
// delay, max_batch_size, shape compatibility). Queue policies reject or defer
// requests that wait too long, also while every instance is busy (see
// QueueSweeper); cancelled requests are dropped. Thread-safe.
#ifndef INFERD_CORE_SCHEDULER_DYNAMIC_BATCHER_H_
#define INFERD_CORE_SCHEDULER_DYNAMIC_BATCHER_H_

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "inferd/base/thread_annotations.h"
#include "core/scheduler/batch_rules.h"
#include "core/scheduler/queue_sweeper.h"
#include "core/scheduler/request_queues.h"
#include "core/scheduler/response_orderer.h"
#include "core/scheduler/scheduler.h"
#include "model_config.pb.h"

namespace inferd {

class DynamicBatcher : public Scheduler, public BatchSource, private ExpiringQueue {
 public:
  // Starts a thread for each of `instances`, which must outlive Stop().
  DynamicBatcher(const inference::ModelConfig& config, std::vector<ModelInstance*> instances);
  ~DynamicBatcher() override;

  Status Enqueue(InferenceRequest* request) override;
  size_t InflightCount() const override;
  size_t QueuedCount() const override;
  void Stop() override;

  bool NextBatch(ModelInstance& instance, std::vector<InferenceRequest*>* batch) override;
  void BatchDone(ModelInstance& instance, size_t request_count) override;

 private:
  uint64_t SweepExpired(uint64_t now_ns) override;

  // How many queued requests, from the front, may join the first one's batch.
  size_t CompatiblePrefix(const std::vector<const QueuedRequest*>& order) const;

  // Constant after construction.
  const std::vector<ModelInstance*> instances_;
  BatchRules rules_;
  uint64_t max_queue_delay_ns_ = 0;
  std::vector<std::string> ragged_inputs_;  // inputs that allow ragged batching
  std::unique_ptr<ResponseOrderer> orderer_;  // set when preserve_ordering

  std::atomic<size_t> executing_{0};
  mutable std::mutex mu_;
  std::condition_variable changed_;
  RequestQueues queues_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  // The earliest time the QueueSweeper will call back; 0: none scheduled.
  uint64_t sweep_at_ns_ GUARDED_BY(mu_) = 0;
  bool stopped_ = false;  // only Stop() touches it
};

}  // namespace inferd

#endif  // INFERD_CORE_SCHEDULER_DYNAMIC_BATCHER_H_

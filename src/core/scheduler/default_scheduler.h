// The default scheduler: one FIFO queue shared by every instance of a model;
// a free instance takes the next request and executes it alone (no batching
// across requests). Thread-safe.
#ifndef INFERD_CORE_SCHEDULER_DEFAULT_SCHEDULER_H_
#define INFERD_CORE_SCHEDULER_DEFAULT_SCHEDULER_H_

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

#include "inferd/base/thread_annotations.h"
#include "core/scheduler/scheduler.h"

namespace inferd {

class DefaultScheduler : public Scheduler, public BatchSource {
 public:
  // Starts a thread for each of `instances`, which must outlive Stop().
  explicit DefaultScheduler(std::vector<ModelInstance*> instances);
  ~DefaultScheduler() override;

  Status Enqueue(InferenceRequest* request) override;
  size_t InflightCount() const override;
  size_t QueuedCount() const override;
  void Stop() override;

  bool NextBatch(ModelInstance& instance, std::vector<InferenceRequest*>* batch) override;
  void BatchDone(ModelInstance& instance, size_t request_count) override;

 private:
  // Constant after construction.
  const std::vector<ModelInstance*> instances_;

  std::atomic<size_t> executing_{0};
  mutable std::mutex mu_;
  std::condition_variable work_ready_;
  std::deque<InferenceRequest*> queue_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  bool stopped_ = false;  // only Stop() touches it
};

}  // namespace inferd

#endif  // INFERD_CORE_SCHEDULER_DEFAULT_SCHEDULER_H_

// The default scheduler: one FIFO queue shared by every instance of a model;
// a free instance takes the next request and executes it alone (no batching
// across requests). Thread-safe.
#ifndef INFERD_CORE_SCHEDULER_DEFAULT_SCHEDULER_H_
#define INFERD_CORE_SCHEDULER_DEFAULT_SCHEDULER_H_

#include <atomic>
#include <deque>
#include <vector>

#include "core/scheduler/scheduler.h"
#include "inferd/base/mutex.h"

namespace inferd {

class DefaultScheduler : public Scheduler, public BatchSource {
 public:
  DefaultScheduler() = default;
  ~DefaultScheduler() override;

  Status Enqueue(InferenceRequest* request) override EXCLUDES(mu_);
  size_t InflightCount() const override EXCLUDES(mu_);
  size_t QueuedCount() const override EXCLUDES(mu_);
  void Stop() override EXCLUDES(mu_);

  bool NextBatch(size_t instance, std::vector<InferenceRequest*>* batch) override EXCLUDES(mu_);
  void BatchDone(size_t instance, size_t request_count) override;

 private:
  std::atomic<size_t> executing_{0};
  mutable Mutex mu_;
  CondVar work_ready_;
  std::deque<InferenceRequest*> queue_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
};

}  // namespace inferd

#endif  // INFERD_CORE_SCHEDULER_DEFAULT_SCHEDULER_H_

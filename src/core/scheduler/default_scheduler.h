// The default scheduler: one FIFO queue shared by every instance of a model;
// a free instance takes the next request and executes it alone (no batching
// across requests). With a CallerExecutor, a request that allows it executes
// at once on the submitting thread when an instance is idle, nothing waits,
// and the model's executions are short (caller_execution.h). Thread-safe.
#ifndef INFERD_CORE_SCHEDULER_DEFAULT_SCHEDULER_H_
#define INFERD_CORE_SCHEDULER_DEFAULT_SCHEDULER_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "core/scheduler/caller_execution.h"
#include "core/scheduler/scheduler.h"
#include "inferd/base/mutex.h"

namespace inferd {

class Clock;

class DefaultScheduler : public Scheduler, public BatchSource {
 public:
  // `instances`: how many instances take work (indices 0 .. instances-1).
  // `clock` and `caller` (both or neither) enable execution on callers'
  // threads; `caller` outlives the scheduler.
  explicit DefaultScheduler(size_t instances, const Clock* clock = nullptr,
                            CallerExecutor* caller = nullptr);
  ~DefaultScheduler() override;

  Status Enqueue(InferenceRequest* request) override EXCLUDES(mu_);
  size_t InflightCount() const override EXCLUDES(mu_);
  size_t QueuedCount() const override EXCLUDES(mu_);
  // Also waits for executions on callers' threads to end, so that the model
  // may finalize its instances once Stop returns.
  void Stop() override EXCLUDES(mu_);

  bool NextBatch(size_t instance, std::vector<InferenceRequest*>* batch) override EXCLUDES(mu_);
  void BatchDone(size_t instance, size_t request_count) override;

  // The moving average the caller-thread decision reads (for tests).
  const RecentExecutionTime& recent_execution_time() const { return recent_; }

 private:
  struct InstanceState {
    bool waiting = false;  // its thread waits in NextBatch, not yet signalled
    bool claimed = false;  // a caller's thread executes on it
  };

  // Picks an idle instance for `request` to execute on the calling thread;
  // false when it must wait in the queue.
  bool ClaimForCaller(const InferenceRequest& request, size_t* instance) REQUIRES(mu_);
  void ExecuteOnCaller(size_t instance, InferenceRequest* request) EXCLUDES(mu_);
  // Signals one waiting, unclaimed instance, if any.
  void WakeOne() REQUIRES(mu_);

  const Clock* const clock_;
  CallerExecutor* const caller_;
  const size_t instance_count_;
  RecentExecutionTime recent_;
  std::atomic<size_t> executing_{0};
  // When each instance's current batch left the queue; each element is
  // touched only by its instance's thread (NextBatch, then BatchDone).
  std::unique_ptr<uint64_t[]> batch_start_ns_;
  std::vector<bool> may_run_on_caller_;  // by instance; constant
  // By instance: the one-request batch a caller executes, reused so that a
  // request run on its caller's thread allocates nothing here; touched only
  // by the caller holding that instance's claim.
  std::unique_ptr<std::vector<InferenceRequest*>[]> caller_batches_;
  // By instance: signalled when it has work or must stop.
  std::unique_ptr<CondVar[]> wake_;
  mutable Mutex mu_;
  std::vector<InstanceState> instances_ GUARDED_BY(mu_);
  std::deque<InferenceRequest*> queue_ GUARDED_BY(mu_);
  size_t claimed_ GUARDED_BY(mu_) = 0;  // instances executing for callers
  CondVar claims_ended_;                // signalled when claimed_ drops to 0 while stopping
  bool stopping_ GUARDED_BY(mu_) = false;
};

}  // namespace inferd

#endif  // INFERD_CORE_SCHEDULER_DEFAULT_SCHEDULER_H_

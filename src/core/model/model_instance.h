// One instance of a loaded model version: the backend's per-instance state
// and the thread that executes its batches. The object behind
// INFERD_ModelInstance. The thread is the only caller of the backend's execute
// for this instance, so the backend never sees two concurrent executes on it.
#ifndef INFERD_CORE_MODEL_MODEL_INSTANCE_H_
#define INFERD_CORE_MODEL_MODEL_INSTANCE_H_

#include <string>
#include <thread>
#include <vector>

#include "core/model/host_policy.h"
#include "core/rate_limiter/rate_limiter.h"
#include "inferd/base/status.h"
#include "inferd/backend.h"

namespace inferd {

class BatchSource;
class InferenceRequest;
class ModelVersion;

class ModelInstance {
 public:
  ModelInstance(ModelVersion* model, std::string name, INFERD_InstanceKind kind,
                int32_t device_id, bool passive);
  ~ModelInstance();
  ModelInstance(const ModelInstance&) = delete;
  ModelInstance& operator=(const ModelInstance&) = delete;

  // Runs the backend's instance initialize.
  Status Initialize();
  // Runs the backend's instance finalize, if Initialize succeeded.
  void Finalize();
  // Before Start(): each execution first takes `ticket`'s resources from
  // `limiter` and gives them back when it ends. Without it (--rate-limit=off,
  // or an instance listing no resource) executions never wait.
  void LimitBy(RateLimiter* limiter, RateLimiter::Ticket* ticket) {
    limiter_ = limiter;
    ticket_ = ticket;
  }
  // Before Start(): the execution thread binds itself as `policy` says
  // (--host-policy). `policy` outlives the instance.
  void FollowHostPolicy(const HostPolicy* policy) { host_policy_ = policy; }
  // Starts the execution thread, which takes work from `source`, as its
  // instance number `index`, until told to stop.
  void Start(BatchSource* source, size_t index);
  // Waits for the execution thread to end (after the source said stop).
  void Join();
  // Executes `batch` on the calling thread; only before Start() (warmup).
  void ExecuteNow(std::vector<InferenceRequest*>& batch, bool record_stats) {
    Execute(batch, record_stats);
  }
  // INFERD_ModelInstanceSetExecuteOnAnyThread, from instance initialize.
  void AllowExecuteOnAnyThread(bool allowed) { any_thread_ = allowed; }
  // Whether a caller's thread may execute this instance's batches
  // (scheduler/caller_execution.h): its backend allows it, and neither a rate
  // limiter ticket nor a host policy ties executions to the instance's thread.
  bool MayExecuteOnCaller() const {
    return any_thread_ && ticket_ == nullptr && host_policy_ == nullptr;
  }
  // Executes `batch` on the calling thread while the scheduler keeps the
  // instance's own thread away from it.
  void ExecuteOnCaller(std::vector<InferenceRequest*>& batch) { Execute(batch); }

  ModelVersion* model() const { return model_; }
  const std::string& name() const { return name_; }
  INFERD_InstanceKind kind() const { return kind_; }
  int32_t device_id() const { return device_id_; }
  bool passive() const { return passive_; }
  void* state = nullptr;  // the backend's own, see INFERD_ModelInstanceSetState

  INFERD_ModelInstance* handle() { return reinterpret_cast<INFERD_ModelInstance*>(this); }

  // INFERD_ModelInstanceReportComputeTimes, from the thread running execute:
  // the computation proper within the current execution (steady clock ns).
  void ReportComputeTimes(uint64_t start_ns, uint64_t end_ns) {
    if (compute_start_ns_ == 0 || start_ns < compute_start_ns_) compute_start_ns_ = start_ns;
    if (end_ns > compute_end_ns_) compute_end_ns_ = end_ns;
  }
  static ModelInstance* FromHandle(INFERD_ModelInstance* handle) {
    return reinterpret_cast<ModelInstance*>(handle);
  }

 private:
  void Run(BatchSource* source, size_t index);
  // Takes the rate limiter's resources to run `batch`, timing the wait in
  // the statistics (and in the traces of its traced requests).
  void WaitForResources(const std::vector<InferenceRequest*>& batch);
  // Hands `batch` to the backend; answers and releases the requests itself
  // when they are cancelled or the backend fails.
  void Execute(std::vector<InferenceRequest*>& batch, bool record_stats = true);
  // What the backend reported for the execution under way; 0 when nothing.
  uint64_t compute_start_ns_ = 0;
  uint64_t compute_end_ns_ = 0;

  ModelVersion* const model_;
  const std::string name_;
  const INFERD_InstanceKind kind_;
  const int32_t device_id_;
  const bool passive_;
  bool initialized_ = false;
  bool any_thread_ = false;
  RateLimiter* limiter_ = nullptr;
  const HostPolicy* host_policy_ = nullptr;  // null: no constraint
  RateLimiter::Ticket* ticket_ = nullptr;  // null: never waits
  std::thread thread_;
};

}  // namespace inferd

#endif  // INFERD_CORE_MODEL_MODEL_INSTANCE_H_

// One client request's run through an ensemble's step graph
// (ensemble_scheduler.h): the tensors each step makes, the step requests in
// flight, and what the client gets. Used by EnsembleScheduler only.
#ifndef INFERD_CORE_SCHEDULER_ENSEMBLE_RUN_H_
#define INFERD_CORE_SCHEDULER_ENSEMBLE_RUN_H_

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/infer/inference_request.h"
#include "core/scheduler/ensemble_scheduler.h"
#include "core/stats/compute_tally.h"
#include "inferd/base/mutex.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd {

class InferenceResponse;

// One value of an ensemble tensor: its data, in the client's input buffers or
// in memory the run owns.
struct RunTensor {
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  std::vector<int64_t> shape;
  std::vector<InputBuffer> buffers;
  uint64_t byte_size = 0;
};

// Every value an ensemble tensor took in one run, by generation: a step run
// for generation g answers with generation g, and its k-th further response
// (a decoupled step) with g + k. `final` once its producer will send no more
// (at once for an ensemble input): from then on a generation it lacks reads
// its last value.
struct TensorValues {
  std::map<size_t, RunTensor> values;
  bool final = false;

  // The value for generation `generation`; null while it may still come.
  const RunTensor* At(size_t generation) const {
    if (auto found = values.find(generation); found != values.end()) return &found->second;
    return final && !values.empty() ? &values.rbegin()->second : nullptr;
  }
};

class EnsembleRun;

// A step's request in flight: the userp of its allocator, response and
// release callbacks. Deleted at release.
struct StepRequest {
  std::shared_ptr<EnsembleRun> run;
  int step = 0;
  size_t generation = 0;
  size_t responses = 0;  // received so far
  // Shared so that a cancel can reach it while it is being released.
  std::shared_ptr<InferenceRequest> request;
};

using OutputSet = std::vector<std::pair<std::string, RunTensor>>;

// One client request's walk through the graph. Lives until its last step
// request and the client request are released (shared by the step requests).
//
// A step runs once per generation of its inputs: once when every input has a
// value, and again for each further response of a decoupled step upstream
// (inputs from steps that answered once are reused). The client gets one
// response per generation of the requested outputs (a decoupled ensemble) or
// exactly one.
class EnsembleRun : public std::enable_shared_from_this<EnsembleRun> {
 public:
  EnsembleRun(std::shared_ptr<const EnsemblePlan> plan, RequestSubmitter* submitter,
              InferenceRequest* client, std::shared_ptr<std::atomic<size_t>> runs)
      : plan_(std::move(plan)),
        submitter_(submitter),
        client_(client),
        runs_(std::move(runs)),
        needed_(plan_->steps.size(), false),
        fired_(plan_->steps.size(), 0),
        outstanding_(plan_->steps.size(), 0) {}

  void Start() EXCLUDES(mu_, send_mu_);

 private:
  static INFERD_Error* Allocate(INFERD_ResponseAllocator*, const char*, size_t byte_size,
                                INFERD_MemoryType, int64_t, void* userp, void** buffer,
                                void** buffer_userp, INFERD_MemoryType* memory_type,
                                int64_t* memory_type_id);
  // The run's memory is freed with the run, not with the step's response.
  static INFERD_Error* ReleaseBuffer(INFERD_ResponseAllocator*, void*, void*, size_t,
                                     INFERD_MemoryType, int64_t) {
    return nullptr;
  }
  static void OnResponse(INFERD_InferenceResponse* response, uint32_t flags, void* userp);
  static void OnRelease(INFERD_InferenceRequest* request, uint32_t flags, void* userp);
  static INFERD_ResponseAllocator allocator_;

  // Prepares a request for each generation step `step` can now run.
  void FireLocked(int step, std::vector<StepRequest*>* launch) REQUIRES(mu_);
  // Builds step `step`'s request for `generation`; counts it pending.
  StepRequest* PrepareStep(int step, size_t generation) REQUIRES(mu_);
  void Submit(const std::vector<StepRequest*>& steps) EXCLUDES(mu_, send_mu_);
  void OnStepResponse(StepRequest& request, InferenceResponse* response, uint32_t flags)
      EXCLUDES(mu_, send_mu_);
  // Step `step` will run no more: its outputs become final, which may let
  // the steps reading them run, or end too.
  void MaybeEndLocked(int step, std::vector<StepRequest*>* launch) REQUIRES(mu_);
  // Records the run's failure (the first one counts) and cancels the step
  // requests in flight: it returns them, to be cancelled without mu_.
  std::vector<std::shared_ptr<InferenceRequest>> FailLocked(int step, const Status& status)
      REQUIRES(mu_);
  static void CancelAll(const std::vector<std::shared_ptr<InferenceRequest>>& requests);
  // Sends the client what is complete: each generation of the requested
  // outputs, the failure, and at the end (nothing pending) FINAL.
  void Respond(bool at_end) EXCLUDES(mu_, send_mu_);
  // The requested outputs at generation `generation`, when all exist and
  // one of them is new there.
  bool CollectLocked(size_t generation, OutputSet* outputs) REQUIRES(mu_);
  Status SendOutputs(const OutputSet& outputs, uint32_t flags) REQUIRES(send_mu_);
  // Something that could still produce a tensor (a step request, Start) is
  // done; the last one releases the client request.
  void DropPending() EXCLUDES(mu_, send_mu_);
  // The run is over: a successful one counts in the ensemble's statistics as
  // Triton counts it (ModelStatistics::RecordEnsembleRequest), with its steps'
  // compute times once the last execution added them (compute_tally.h); a
  // nested ensemble adds them to its parent's tally too.
  void FinishStatistics();

  const std::shared_ptr<const EnsemblePlan> plan_;
  RequestSubmitter* const submitter_;
  InferenceRequest* const client_;
  const std::shared_ptr<std::atomic<size_t>> runs_;
  // The steps' compute times; every step request holds it. Dropped by
  // FinishStatistics.
  std::shared_ptr<ComputeTally> tally_ = std::make_shared<ComputeTally>();
  uint64_t start_ns_ = 0;  // when Start ran (the model's clock): the queue time's end

  // Serializes what goes to the client, in order; taken before mu_.
  Mutex send_mu_;
  Mutex mu_ ACQUIRED_AFTER(send_mu_);
  std::map<std::string, TensorValues, std::less<>> tensors_ GUARDED_BY(mu_);
  std::deque<std::unique_ptr<char[]>> arena_ GUARDED_BY(mu_);
  std::set<std::string, std::less<>> wanted_ GUARDED_BY(mu_);  // tensors the outputs need
  std::vector<bool> needed_ GUARDED_BY(mu_);  // steps the outputs need
  std::vector<size_t> fired_ GUARDED_BY(mu_);  // generations each step was submitted for
  std::vector<size_t> outstanding_ GUARDED_BY(mu_);  // its requests without FINAL yet
  std::set<StepRequest*> in_flight_ GUARDED_BY(mu_);  // submitted, not released
  size_t pending_ GUARDED_BY(mu_) = 0;
  bool failed_ GUARDED_BY(mu_) = false;
  Status failure_ GUARDED_BY(mu_);
  size_t sent_ GUARDED_BY(mu_) = 0;  // generations of outputs sent to the client
  bool final_sent_ GUARDED_BY(mu_) = false;
};

}  // namespace inferd

#endif  // INFERD_CORE_SCHEDULER_ENSEMBLE_RUN_H_

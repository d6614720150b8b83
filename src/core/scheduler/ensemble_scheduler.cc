#include "core/scheduler/ensemble_scheduler.h"

#include <cstring>
#include <algorithm>
#include <deque>
#include <set>

#include "core/common/c_error.h"
#include "core/infer/inference_request.h"
#include "core/infer/inference_response.h"
#include "core/infer/request_submitter.h"
#include "core/infer/response_allocator.h"
#include "inferd/base/mutex.h"

namespace inferd {

std::string EnsemblePlan::StepLabel(int step) const {
  return "step[" + std::to_string(step) + "] (model '" + steps[step].model_name + "')";
}

std::shared_ptr<const EnsemblePlan> EnsemblePlan::FromConfig(const inference::ModelConfig& config) {
  auto plan = std::make_shared<EnsemblePlan>();
  plan->ensemble_name = config.name();
  const auto& steps = config.ensemble_scheduling().step();
  for (int i = 0; i < steps.size(); ++i) {
    Step& step = plan->steps.emplace_back();
    step.model_name = steps[i].model_name();
    step.model_version = steps[i].model_version();
    // Sorted by model tensor name: maps have no order of their own.
    std::map<std::string, std::string> inputs(steps[i].input_map().begin(),
                                              steps[i].input_map().end());
    std::map<std::string, std::string> outputs(steps[i].output_map().begin(),
                                               steps[i].output_map().end());
    step.inputs.assign(inputs.begin(), inputs.end());
    step.outputs.assign(outputs.begin(), outputs.end());
    for (const auto& [name, tensor] : step.inputs) plan->consumers[tensor].push_back(i);
    for (const auto& [name, tensor] : step.outputs) plan->producer[tensor] = i;
  }
  return plan;
}

namespace {

// An ensemble tensor of one run: its data, in the client's input buffers or
// in memory the run owns, once it exists.
struct RunTensor {
  bool ready = false;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  std::vector<int64_t> shape;
  std::vector<InputBuffer> buffers;
  uint64_t byte_size = 0;
};

class EnsembleRun;

// A step's request in flight: the userp of its allocator, response and
// release callbacks. Deleted at release.
struct StepRequest {
  std::shared_ptr<EnsembleRun> run;
  int step = 0;
  std::unique_ptr<InferenceRequest> request;
};

// One client request's walk through the graph. Lives until its last step
// request and the client request are released (shared by the step requests).
class EnsembleRun : public std::enable_shared_from_this<EnsembleRun> {
 public:
  EnsembleRun(std::shared_ptr<const EnsemblePlan> plan, RequestSubmitter* submitter,
              InferenceServer* server, InferenceRequest* client,
              std::shared_ptr<std::atomic<size_t>> runs)
      : plan_(std::move(plan)),
        submitter_(submitter),
        server_(server),
        client_(client),
        runs_(std::move(runs)),
        needed_(plan_->steps.size(), false),
        waiting_(plan_->steps.size(), 0),
        responses_(plan_->steps.size(), 0) {}

  void Start() EXCLUDES(mu_);

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

  // Builds step `step`'s request from tensors that exist; counts it pending.
  StepRequest* PrepareStep(int step) REQUIRES(mu_);
  void Submit(const std::vector<StepRequest*>& steps) EXCLUDES(mu_);
  void OnStepResponse(int step, InferenceResponse* response) EXCLUDES(mu_);
  void FailLocked(int step, const Status& status) REQUIRES(mu_);
  // Answers the client once every output it asked for exists, or the run failed.
  void MaybeRespond() EXCLUDES(mu_);
  // Something that could still produce a tensor (a step request, Start) is
  // done; the last one releases the client request.
  void DropPending() EXCLUDES(mu_);
  void SendOutputs(const std::vector<std::pair<std::string, RunTensor>>& outputs);

  const std::shared_ptr<const EnsemblePlan> plan_;
  RequestSubmitter* const submitter_;
  InferenceServer* const server_;
  InferenceRequest* const client_;
  const std::shared_ptr<std::atomic<size_t>> runs_;

  Mutex mu_;
  std::map<std::string, RunTensor, std::less<>> tensors_ GUARDED_BY(mu_);
  std::deque<std::unique_ptr<char[]>> arena_ GUARDED_BY(mu_);
  std::set<std::string, std::less<>> wanted_ GUARDED_BY(mu_);  // tensors the outputs need
  std::vector<bool> needed_ GUARDED_BY(mu_);  // steps the outputs need
  std::vector<int> waiting_ GUARDED_BY(mu_);  // inputs a needed step still waits for
  std::vector<int> responses_ GUARDED_BY(mu_);
  size_t pending_ GUARDED_BY(mu_) = 0;
  bool failed_ GUARDED_BY(mu_) = false;
  Status failure_ GUARDED_BY(mu_);
  bool responded_ GUARDED_BY(mu_) = false;
};

INFERD_ResponseAllocator EnsembleRun::allocator_{&EnsembleRun::Allocate,
                                                 &EnsembleRun::ReleaseBuffer};

void EnsembleRun::Start() {
  std::vector<StepRequest*> launch;
  {
    MutexLock lock(&mu_);
    pending_ = 1;  // this call
    for (const InputTensor& input : client_->inputs()) {
      RunTensor& tensor = tensors_[input.name];
      tensor = {true, input.datatype, input.original_shape, input.buffers, input.byte_size};
    }
    // Only the steps the requested outputs depend on run.
    std::vector<std::string> wanted(client_->outputs->begin(), client_->outputs->end());
    while (!wanted.empty()) {
      const std::string tensor = std::move(wanted.back());
      wanted.pop_back();
      wanted_.insert(tensor);
      auto producer = plan_->producer.find(tensor);
      if (producer == plan_->producer.end() || needed_[producer->second]) continue;
      needed_[producer->second] = true;
      for (const auto& [name, input] : plan_->steps[producer->second].inputs) {
        wanted.push_back(input);
      }
    }
    for (size_t step = 0; step < plan_->steps.size(); ++step) {
      if (!needed_[step]) continue;
      for (const auto& [name, tensor] : plan_->steps[step].inputs) {
        // An optional ensemble input the client left out is never waited for.
        if (plan_->producer.contains(tensor)) ++waiting_[step];
      }
      if (waiting_[step] == 0) launch.push_back(PrepareStep(static_cast<int>(step)));
    }
  }
  Submit(launch);
  DropPending();
}

StepRequest* EnsembleRun::PrepareStep(int step) {
  const EnsemblePlan::Step& plan = plan_->steps[step];
  auto pending = std::make_unique<StepRequest>();
  pending->run = shared_from_this();
  pending->step = step;
  pending->request =
      std::make_unique<InferenceRequest>(server_, plan.model_name, plan.model_version);
  InferenceRequest& request = *pending->request;
  request.id = client_->id;
  request.priority = client_->priority;
  request.timeout_us = client_->timeout_us;
  request.parameters = client_->parameters;
  for (const auto& [name, tensor_name] : plan.inputs) {
    auto found = tensors_.find(tensor_name);
    if (found == tensors_.end() || !found->second.ready) continue;  // optional, absent
    const RunTensor& tensor = found->second;
    // Cannot fail: each input is added once, with its data.
    (void)request.AddInput(name, tensor.datatype, tensor.shape.data(), tensor.shape.size());
    for (const InputBuffer& buffer : tensor.buffers) (void)request.AppendInputData(name, buffer);
  }
  for (const auto& [name, tensor] : plan.outputs) {
    if (wanted_.contains(tensor)) request.requested_outputs.push_back(name);
  }
  request.route = {&allocator_, pending.get(), &EnsembleRun::OnResponse, pending.get()};
  request.release_fn = &EnsembleRun::OnRelease;
  request.release_userp = pending.get();
  ++pending_;
  return pending.release();
}

void EnsembleRun::Submit(const std::vector<StepRequest*>& steps) {
  for (StepRequest* step : steps) {
    Status status = submitter_->Submit(step->request.get());
    if (status.ok()) continue;
    {
      MutexLock lock(&mu_);
      FailLocked(step->step, status);
    }
    // Never queued: no callback will run, so release it here.
    delete step;
    MaybeRespond();
    DropPending();
  }
}

INFERD_Error* EnsembleRun::Allocate(INFERD_ResponseAllocator*, const char*, size_t byte_size,
                                    INFERD_MemoryType, int64_t, void* userp, void** buffer,
                                    void** buffer_userp, INFERD_MemoryType* memory_type,
                                    int64_t* memory_type_id) {
  EnsembleRun& run = *static_cast<StepRequest*>(userp)->run;
  *buffer = nullptr;
  *buffer_userp = nullptr;
  *memory_type = INFERD_MEMORY_CPU;
  *memory_type_id = 0;
  if (byte_size == 0) return nullptr;
  MutexLock lock(&run.mu_);
  *buffer = run.arena_.emplace_back(std::make_unique_for_overwrite<char[]>(byte_size)).get();
  return nullptr;
}

void EnsembleRun::OnResponse(INFERD_InferenceResponse* response, uint32_t, void* userp) {
  auto* step = static_cast<StepRequest*>(userp);
  std::unique_ptr<InferenceResponse> owned(reinterpret_cast<InferenceResponse*>(response));
  if (owned != nullptr) step->run->OnStepResponse(step->step, owned.get());
}

void EnsembleRun::OnRelease(INFERD_InferenceRequest*, uint32_t, void* userp) {
  auto* step = static_cast<StepRequest*>(userp);
  std::shared_ptr<EnsembleRun> run = std::move(step->run);
  delete step;
  run->DropPending();
}

void EnsembleRun::OnStepResponse(int step, InferenceResponse* response) {
  std::vector<StepRequest*> launch;
  {
    MutexLock lock(&mu_);
    if (!response->error().ok()) {
      FailLocked(step, response->error());
    } else if (responses_[step]++ > 0) {
      FailLocked(step, Status::Unsupported(
                           "sent more than one response; an ensemble does not yet stream "
                           "the responses of a decoupled composing model"));
    } else {
      const EnsemblePlan::Step& plan = plan_->steps[step];
      for (const auto& output : response->outputs()) {
        auto mapped = std::find_if(plan.outputs.begin(), plan.outputs.end(),
                                   [&](const auto& o) { return o.first == output->name; });
        if (mapped == plan.outputs.end()) continue;
        RunTensor& tensor = tensors_[mapped->second];
        tensor = {true, output->datatype, output->shape,
                  {InputBuffer{output->buffer, output->byte_size, output->memory_type,
                               output->memory_type_id}},
                  output->byte_size};
        auto consumers = plan_->consumers.find(mapped->second);
        if (failed_ || consumers == plan_->consumers.end()) continue;
        for (int next : consumers->second) {
          if (needed_[next] && --waiting_[next] == 0) launch.push_back(PrepareStep(next));
        }
      }
    }
  }
  Submit(launch);
  MaybeRespond();
}

void EnsembleRun::FailLocked(int step, const Status& status) {
  if (failed_) return;
  failed_ = true;
  failure_ = status.WithPrefix("ensemble '" + plan_->ensemble_name + "' " +
                               plan_->StepLabel(step) + ": ");
}

void EnsembleRun::MaybeRespond() {
  std::vector<std::pair<std::string, RunTensor>> outputs;
  Status error;
  {
    MutexLock lock(&mu_);
    if (responded_) return;
    if (failed_) {
      error = failure_;
    } else {
      for (const std::string& name : *client_->outputs) {
        auto found = tensors_.find(name);
        if (found == tensors_.end() || !found->second.ready) {
          if (pending_ > 0) return;  // still coming
          const int step = plan_->producer.at(name);
          error = Status::Internal("ensemble '" + plan_->ensemble_name + "': output '" + name +
                                   "' was not produced: " + plan_->StepLabel(step) +
                                   " answered without it");
          break;
        }
        outputs.emplace_back(name, found->second);
      }
    }
    responded_ = true;
  }
  if (!error.ok()) {
    client_->RespondWithError(error);
  } else {
    SendOutputs(outputs);
  }
}

void EnsembleRun::SendOutputs(const std::vector<std::pair<std::string, RunTensor>>& outputs) {
  auto response = std::make_unique<InferenceResponse>(*client_);
  for (const auto& [name, tensor] : outputs) {
    StatusOr<OutputTensor*> added =
        response->AddOutput(name, tensor.datatype, tensor.shape.data(),
                            static_cast<uint32_t>(tensor.shape.size()));
    Status status = added.status();
    if (status.ok()) {
      INFERD_MemoryType memory_type = INFERD_MEMORY_CPU;
      int64_t memory_type_id = 0;
      status = response->AllocateBuffer(*added, tensor.byte_size, &memory_type, &memory_type_id);
    }
    if (!status.ok()) {
      client_->RespondWithError(status.WithPrefix("ensemble '" + plan_->ensemble_name + "': "));
      return;
    }
    char* target = static_cast<char*>((*added)->buffer);
    for (const InputBuffer& buffer : tensor.buffers) {
      if (buffer.byte_size == 0) continue;
      std::memcpy(target, buffer.base, buffer.byte_size);
      target += buffer.byte_size;
    }
  }
  (void)InferenceResponse::Send(std::move(response), INFERD_RESPONSE_COMPLETE_FINAL, Status::Ok());
}

void EnsembleRun::DropPending() {
  {
    MutexLock lock(&mu_);
    if (--pending_ > 0) return;
  }
  MaybeRespond();  // an output that never came
  runs_->fetch_sub(1);
  // Last: the client may delete its request, and with it the ensemble.
  client_->Release();
}

}  // namespace

EnsembleScheduler::EnsembleScheduler(const inference::ModelConfig& config,
                                     RequestSubmitter* submitter, InferenceServer* server)
    : plan_(EnsemblePlan::FromConfig(config)), submitter_(submitter), server_(server) {}

Status EnsembleScheduler::Enqueue(InferenceRequest* request) {
  if (stopped_.load()) {
    return Status::Unavailable("ensemble '" + plan_->ensemble_name + "' is being unloaded");
  }
  runs_->fetch_add(1);
  auto run = std::make_shared<EnsembleRun>(plan_, submitter_, server_, request, runs_);
  run->Start();
  return Status::Ok();
}

}  // namespace inferd

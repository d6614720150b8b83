#include "core/scheduler/ensemble_run.h"

#include <algorithm>
#include <cstring>

#include "core/common/c_error.h"
#include "core/infer/bound_model.h"
#include "core/infer/inference_response.h"
#include "core/infer/request_submitter.h"
#include "core/infer/response_allocator.h"
#include "core/stats/model_statistics.h"
#include "core/timing/clock.h"

namespace inferd {

INFERD_ResponseAllocator EnsembleRun::allocator_{&EnsembleRun::Allocate,
                                                 &EnsembleRun::ReleaseBuffer};

void EnsembleRun::Start() {
  if (client_->model() != nullptr) start_ns_ = client_->model()->clock().NowNs();
  std::vector<StepRequest*> launch;
  {
    MutexLock lock(&mu_);
    pending_ = 1;  // this call
    for (const InputTensor& input : client_->inputs()) {
      TensorValues& tensor = tensors_[input.name];
      tensor.values[0] = {input.datatype, input.original_shape, input.buffers, input.byte_size};
      tensor.final = true;
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
      if (needed_[step]) FireLocked(static_cast<int>(step), &launch);
    }
  }
  Submit(launch);
  DropPending();
}

void EnsembleRun::FireLocked(int step, std::vector<StepRequest*>* launch) {
  while (!failed_) {
    const size_t generation = fired_[step];
    bool fresh = generation == 0;
    for (const auto& [name, tensor_name] : plan_->steps[step].inputs) {
      // An optional ensemble input the client left out is never waited for.
      if (!plan_->producer.contains(tensor_name) && !tensors_.contains(tensor_name)) continue;
      const TensorValues& tensor = tensors_[tensor_name];
      if (tensor.At(generation) == nullptr) return;
      fresh = fresh || tensor.values.contains(generation);
    }
    if (!fresh) return;  // every input is a value already used
    launch->push_back(PrepareStep(step, generation));
    ++fired_[step];
  }
}

StepRequest* EnsembleRun::PrepareStep(int step, size_t generation) {
  const EnsemblePlan::Step& plan = plan_->steps[step];
  auto pending = std::make_unique<StepRequest>();
  pending->run = shared_from_this();
  pending->step = step;
  pending->generation = generation;
  ++outstanding_[step];
  pending->request =
      std::make_shared<InferenceRequest>(plan.model_name, plan.model_version);
  InferenceRequest& request = *pending->request;
  request.id = client_->id;
  request.model_namespace = plan.model_namespace;
  request.priority = client_->priority;
  request.timeout_us = client_->timeout_us;
  request.parameters = client_->parameters;
  request.parent_trace = client_->trace;
  request.compute_tally = tally_;
  // A step may run on the thread that submits it (the client's, then the
  // previous step's answer) where the client's request may: each step saved
  // a hand-over to an instance thread and back.
  request.may_execute_on_caller = client_->may_execute_on_caller;
  if (plan.sequences) {
    request.correlation_id = client_->correlation_id;
    request.correlation_id_string = client_->correlation_id_string;
    request.flags = client_->flags;
  }
  for (const auto& [name, tensor_name] : plan.inputs) {
    auto found = tensors_.find(tensor_name);
    if (found == tensors_.end()) continue;  // optional, absent
    const RunTensor* tensor = found->second.At(generation);
    // Cannot fail: each input is added once, with its data.
    (void)request.AddInput(name, tensor->datatype, tensor->shape.data(), tensor->shape.size());
    for (const InputBuffer& buffer : tensor->buffers) (void)request.AppendInputData(name, buffer);
  }
  for (const auto& [name, tensor] : plan.outputs) {
    if (wanted_.contains(tensor)) request.requested_outputs.push_back(name);
  }
  request.route = {&allocator_, pending.get(), &EnsembleRun::OnResponse, pending.get()};
  request.release_fn = &EnsembleRun::OnRelease;
  request.release_userp = pending.get();
  ++pending_;
  in_flight_.insert(pending.get());
  return pending.release();
}

void EnsembleRun::Submit(const std::vector<StepRequest*>& steps) {
  for (StepRequest* step : steps) {
    Status status = submitter_->Submit(step->request.get());
    if (status.ok()) continue;
    std::vector<std::shared_ptr<InferenceRequest>> cancel;
    {
      MutexLock lock(&mu_);
      in_flight_.erase(step);
      cancel = FailLocked(step->step, status);
      --outstanding_[step->step];
    }
    CancelAll(cancel);
    // Never queued: no callback will run, so release it here.
    delete step;
    Respond(false);
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

void EnsembleRun::OnResponse(INFERD_InferenceResponse* response, uint32_t flags, void* userp) {
  auto* step = static_cast<StepRequest*>(userp);
  std::unique_ptr<InferenceResponse> owned(reinterpret_cast<InferenceResponse*>(response));
  step->run->OnStepResponse(*step, owned.get(), flags);
}

void EnsembleRun::OnRelease(INFERD_InferenceRequest*, uint32_t, void* userp) {
  auto* step = static_cast<StepRequest*>(userp);
  std::shared_ptr<EnsembleRun> run = std::move(step->run);
  {
    MutexLock lock(&run->mu_);
    run->in_flight_.erase(step);
  }
  delete step;
  run->DropPending();
}

void EnsembleRun::OnStepResponse(StepRequest& request, InferenceResponse* response,
                                 uint32_t flags) {
  const int step = request.step;
  std::vector<StepRequest*> launch;
  std::vector<std::shared_ptr<InferenceRequest>> cancel;
  {
    MutexLock lock(&mu_);
    // A cancelled client request is noticed here, at a step's answer: no
    // further step starts and the ones in flight are cancelled.
    if (client_->cancelled() && !failed_) {
      cancel = FailLocked(-1, Status::Cancelled("the request was cancelled"));
    }
    const size_t generation = request.generation + request.responses;
    if (response != nullptr) ++request.responses;
    const EnsemblePlan::Step& plan = plan_->steps[step];
    std::set<int> touched;  // steps reading a tensor that changed
    if (response != nullptr && !response->error().ok()) {
      cancel = FailLocked(step, response->error());
    } else if (response != nullptr) {
      for (const auto& output : response->outputs()) {
        auto mapped = std::find_if(plan.outputs.begin(), plan.outputs.end(),
                                   [&](const auto& o) { return o.first == output->name; });
        if (mapped == plan.outputs.end()) continue;
        TensorValues& tensor = tensors_[mapped->second];
        if (!plan_->decoupled && !tensor.values.empty()) {
          cancel = FailLocked(step, Status::Unsupported(
                               "sent more than one response; only a decoupled ensemble "
                               "(model_transaction_policy { decoupled: true }) streams them"));
          break;
        }
        tensor.values[generation] = {output->datatype, output->shape,
                                     {InputBuffer{output->buffer, output->byte_size,
                                                  output->memory_type, output->memory_type_id}},
                                     output->byte_size};
        if (auto readers = plan_->consumers.find(mapped->second);
            readers != plan_->consumers.end()) {
          touched.insert(readers->second.begin(), readers->second.end());
        }
      }
    }
    for (int next : touched) {
      if (needed_[next]) FireLocked(next, &launch);
    }
    if (flags & INFERD_RESPONSE_COMPLETE_FINAL) {
      --outstanding_[step];
      MaybeEndLocked(step, &launch);
    }
  }
  CancelAll(cancel);
  Submit(launch);
  Respond(false);
}

void EnsembleRun::MaybeEndLocked(int step, std::vector<StepRequest*>* launch) {
  if (outstanding_[step] != 0) return;
  for (const auto& [name, tensor_name] : plan_->steps[step].inputs) {
    auto found = tensors_.find(tensor_name);
    if (found == tensors_.end()) {
      if (plan_->producer.contains(tensor_name) && !failed_) return;  // not produced yet
      continue;
    }
    const TensorValues& tensor = found->second;
    if (!failed_ && (!tensor.final || (!tensor.values.empty() &&
                                       tensor.values.rbegin()->first >= fired_[step]))) {
      return;  // a generation may still come, or has not run yet
    }
  }
  for (const auto& [name, tensor] : plan_->steps[step].outputs) {
    TensorValues& values = tensors_[tensor];
    if (values.final) continue;
    values.final = true;
    auto readers = plan_->consumers.find(tensor);
    if (readers == plan_->consumers.end()) continue;
    for (int next : readers->second) {
      if (!needed_[next]) continue;
      FireLocked(next, launch);
      MaybeEndLocked(next, launch);
    }
  }
}

std::vector<std::shared_ptr<InferenceRequest>> EnsembleRun::FailLocked(int step,
                                                                      const Status& status) {
  if (failed_) return {};
  failed_ = true;
  std::string where = "ensemble '" + plan_->ensemble_name + "'";
  if (step >= 0) where.append(" ").append(plan_->StepLabel(step));
  failure_ = status.WithPrefix(where + ": ");
  std::vector<std::shared_ptr<InferenceRequest>> cancel;
  for (StepRequest* in_flight : in_flight_) cancel.push_back(in_flight->request);
  return cancel;
}

void EnsembleRun::CancelAll(const std::vector<std::shared_ptr<InferenceRequest>>& requests) {
  for (const auto& request : requests) request->Cancel();
}

bool EnsembleRun::CollectLocked(size_t generation, OutputSet* outputs) {
  bool fresh = generation == 0;
  for (const std::string& name : *client_->outputs) {
    auto found = tensors_.find(name);
    const RunTensor* value = found == tensors_.end() ? nullptr : found->second.At(generation);
    if (value == nullptr) return false;
    fresh = fresh || found->second.values.contains(generation);
    outputs->emplace_back(name, *value);
  }
  return fresh;
}

void EnsembleRun::Respond(bool at_end) {
  MutexLock send(&send_mu_);
  std::vector<OutputSet> ready;
  Status error;
  bool final_flag = false;
  {
    MutexLock lock(&mu_);
    if (final_sent_) return;
    if (failed_) {
      error = failure_;
    } else {
      for (OutputSet outputs; CollectLocked(sent_, &outputs); outputs.clear()) {
        ready.push_back(std::move(outputs));
        ++sent_;
        if (!plan_->decoupled) break;  // one response, FINAL
      }
      if (!plan_->decoupled && sent_ == 0 && at_end) {
        for (const std::string& name : *client_->outputs) {
          auto found = tensors_.find(name);
          if (found != tensors_.end() && !found->second.values.empty()) continue;
          error = Status::Internal("ensemble '" + plan_->ensemble_name + "': output '" + name +
                                   "' was not produced: " +
                                   plan_->StepLabel(plan_->producer.at(name)) +
                                   " answered without it");
          break;
        }
      }
      final_flag = plan_->decoupled && at_end;
    }
    final_sent_ = !error.ok() || final_flag || (!plan_->decoupled && sent_ > 0);
  }
  const uint32_t flags = plan_->decoupled ? 0 : INFERD_RESPONSE_COMPLETE_FINAL;
  for (const OutputSet& outputs : ready) {
    Status sent = SendOutputs(outputs, flags);
    if (!sent.ok()) {
      error = sent;
      break;
    }
  }
  if (!error.ok()) {
    client_->RespondWithError(error);
  } else if (final_flag) {
    InferenceResponse::DeliverFinalFlag(*client_);
  }
}

Status EnsembleRun::SendOutputs(const OutputSet& outputs, uint32_t flags) {
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
    if (!status.ok()) return status.WithPrefix("ensemble '" + plan_->ensemble_name + "': ");
    char* target = static_cast<char*>((*added)->buffer);
    for (const InputBuffer& buffer : tensor.buffers) {
      if (buffer.byte_size == 0) continue;
      std::memcpy(target, buffer.base, buffer.byte_size);
      target += buffer.byte_size;
    }
  }
  return InferenceResponse::Send(std::move(response), flags, Status::Ok());
}

void EnsembleRun::FinishStatistics() {
  // Nothing prepares a step any more (no request pending): tally_ is ours.
  std::shared_ptr<ComputeTally> tally = std::move(tally_);
  const std::shared_ptr<BoundModel>& model = client_->shared_model();
  if (!model || !client_->counts_in_stats || client_->failed()) return;
  const uint64_t rows = client_->batch_size > 0 ? client_->batch_size : 1;
  const uint64_t queue_ns =
      start_ns_ > client_->queue_start_ns ? start_ns_ - client_->queue_start_ns : 0;
  tally->OnFinish([model, parent = client_->compute_tally, rows, queue_ns](
                      uint64_t input_ns, uint64_t infer_ns, uint64_t output_ns) {
    model->stats().RecordEnsembleRequest(rows, queue_ns, input_ns, infer_ns, output_ns,
                                         model->clock().WallMs());
    if (parent) parent->Add(input_ns, infer_ns, output_ns);
  });
}

void EnsembleRun::DropPending() {
  {
    MutexLock lock(&mu_);
    if (--pending_ > 0) return;
  }
  Respond(true);
  FinishStatistics();
  runs_->fetch_sub(1);
  // Last: the client may delete its request, and with it the ensemble.
  client_->Release();
}

}  // namespace inferd

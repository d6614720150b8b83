#include "core/infer/inference_request.h"

#include <algorithm>

#include "core/cache/response_cache.h"
#include "core/infer/bound_model.h"
#include "core/infer/inference_response.h"
#include "core/infer/request_rescheduler.h"
#include "core/infer/response_sender.h"
#include "core/infer/sender_registry.h"
#include "core/stats/model_statistics.h"
#include "core/timing/clock.h"
#include "core/timing/queue_sweeper.h"
#include "core/trace/request_trace.h"

namespace inferd {

InferenceRequest::InferenceRequest(std::string model_name, int64_t model_version)
    : model_name_(std::move(model_name)), requested_version_(model_version) {}

InferenceRequest::~InferenceRequest() = default;

Status InferenceRequest::AddInput(std::string name, INFERD_DataType datatype,
                                  const int64_t* shape, uint64_t dim_count) {
  if (FindInput(name) != nullptr) {
    return Status::AlreadyExists("input '" + name + "' was already added to the request");
  }
  InputTensor& input = inputs_.emplace_back();
  input.name = std::move(name);
  input.datatype = datatype;
  input.original_shape.assign(shape, shape + dim_count);
  input.shape = input.original_shape;
  return Status::Ok();
}

Status InferenceRequest::AppendInputData(const std::string& name, InputBuffer buffer) {
  InputTensor* input = FindInput(name);
  if (input == nullptr) {
    return Status::InvalidArg("cannot append data to input '" + name +
                              "': the input was not added to the request");
  }
  input->byte_size += buffer.byte_size;
  input->buffers.push_back(buffer);
  return Status::Ok();
}

Status InferenceRequest::AddOwnedInput(std::string name, INFERD_DataType datatype,
                                       std::vector<int64_t> shape, std::string data) {
  RETURN_IF_ERROR(AddInput(name, datatype, shape.data(), shape.size()));
  const std::string& kept = owned_data_.emplace_back(std::move(data));
  return AppendInputData(name, InputBuffer{kept.data(), kept.size(), INFERD_MEMORY_CPU, 0});
}

void InferenceRequest::RemoveOwnedInputs() {
  if (owned_data_.empty()) return;
  std::erase_if(inputs_, [this](const InputTensor& input) {
    if (input.buffers.size() != 1) return false;
    return std::any_of(owned_data_.begin(), owned_data_.end(), [&](const std::string& data) {
      return data.data() == input.buffers.front().base;
    });
  });
  owned_data_.clear();
}

void InferenceRequest::Cancel() {
  cancelled_.store(true, std::memory_order_relaxed);
  if (ExpiringQueue* waiting = queue_.load(std::memory_order_acquire)) {
    sweeper_->SweepSoon(waiting);
  }
}

bool InferenceRequest::IsCancelled() const {
  if (cancelled()) return true;
  if (timeout_us == 0 || !model_) return false;
  return model_->clock().NowNs() >= queue_start_ns + timeout_us * 1000;
}

std::shared_ptr<ResponseSender> InferenceRequest::OpenSender() {
  if (!sender_) {
    SenderRegistry* registry = model_ ? &model_->senders() : nullptr;
    sender_ = std::make_shared<ResponseSender>(this, registry);
    if (registry != nullptr) registry->Add(sender_);
  }
  return sender_;
}

void InferenceRequest::NoteResponseSent(uint64_t created_ns, const Status* error) {
  const bool has_error = error != nullptr && !error->ok();
  failed_ = failed_ || has_error;
  if (!model_ || !model_->decoupled() || !counts_in_stats) return;
  const uint64_t now = model_->clock().NowNs();
  uint64_t previous = last_response_ns_;
  if (responses_sent_ == 0) previous = execute_start_ns != 0 ? execute_start_ns : queue_start_ns;
  if (created_ns == 0 || created_ns < previous || created_ns > now) created_ns = now;
  ResponseOutcome outcome = ResponseOutcome::kSuccess;
  if (error == nullptr) {
    outcome = ResponseOutcome::kEmpty;
  } else if (has_error) {
    outcome = error->code() == Status::Code::kCancelled ? ResponseOutcome::kCancel
                                                       : ResponseOutcome::kFail;
  }
  model_->stats().responses.Record(responses_sent_, outcome, created_ns - previous,
                                   now - created_ns);
  // Triton's first-response histogram counts the first message that carries
  // a response (a FINAL alone carries none).
  if (responses_sent_ == 0 && error != nullptr) {
    model_->stats().RecordFirstResponse(now - queue_start_ns);
  }
  ++responses_sent_;
  last_response_ns_ = now;
}

void InferenceRequest::MarkFinalSent() {
  final_sent_ = true;
  if (!model_) return;
  const uint64_t now = model_->clock().NowNs();
  if (trace && trace->At(TracePoint::kComputeStart) != 0) trace->RecordComputeEnd(now);
  if (counts_in_stats) model_->stats().RecordRequest(!failed_, now - queue_start_ns);
}

InputTensor* InferenceRequest::FindInput(std::string_view name) {
  for (InputTensor& input : inputs_) {
    if (input.name == name) return &input;
  }
  return nullptr;
}

void InferenceRequest::Bind(std::shared_ptr<BoundModel> model) {
  model_ = std::move(model);
  final_sent_ = false;
  failed_ = false;
  responses_sent_ = 0;
  last_response_ns_ = 0;
  execute_start_ns = 0;
  requeue_ns = 0;
  sender_.reset();
}

void InferenceRequest::RespondWithError(const Status& status) {
  // Fails only when the request already ended, which leaves nothing to say.
  (void)InferenceResponse::Send(std::make_unique<InferenceResponse>(*this, status),
                                INFERD_RESPONSE_COMPLETE_FINAL, status);
}

Status InferenceRequest::ReleaseFromBackend(uint32_t flags) {
  if (flags == INFERD_REQUEST_RELEASE_RESCHEDULE) return Reschedule();
  if (flags != INFERD_REQUEST_RELEASE_ALL) {
    return Status::InvalidArg("request release flags must be INFERD_REQUEST_RELEASE_ALL (1) or "
                              "INFERD_REQUEST_RELEASE_RESCHEDULE (2), got " +
                              std::to_string(flags));
  }
  if (sender_ && !sender_->BackendReleased()) return Status::Ok();  // released at FINAL
  Release();
  return Status::Ok();
}

Status InferenceRequest::Reschedule() {
  if (rescheduler == nullptr) {
    // Triton's words, which clients and tests look for.
    return Status::InvalidArg(
        "Request is released with TRITONSERVER_REQUEST_RELEASE_RESCHEDULE, while the model '" +
        model_name_ + "' is not configured to handle such a flag (rescheduling needs "
        "sequence_batching { iterative_sequence: true })");
  }
  // Read now: once queued again the request may run and end on another thread.
  const std::shared_ptr<BoundModel> model = model_;
  const bool counted = counts_in_stats && model != nullptr;
  const bool ok = !failed_;
  const uint64_t admitted_ns = queue_start_ns;
  const uint64_t previous = requeue_ns;
  requeue_ns = model ? model->clock().NowNs() : 0;
  admission.EnterQueue();  // before it is queued: from then on it may run and leave
  if (Status queued = rescheduler->Reschedule(this); !queued.ok()) {
    admission.LeaveQueue();
    requeue_ns = previous;
    return queued;
  }
  // Triton counts each execution of a rescheduled request as an inference
  // of its own; the last one is counted at FINAL.
  if (counted) model->stats().RecordRequest(ok, model->clock().NowNs() - admitted_ns);
  return Status::Ok();
}

void InferenceRequest::Release() {
  if (rescheduler != nullptr) std::exchange(rescheduler, nullptr)->Released(this);
  if (!final_sent_) {
    RespondWithError(Status::Internal("model '" + model_name_ +
                                      "': the backend released the request without a final "
                                      "response"));
  }
  if (trace) {
    // Handed to its collector here (unless an executing batch still holds it),
    // before the client may reuse or delete the request.
    TraceNow(trace, TracePoint::kRequestEnd);
    trace.reset();
  }
  if (sender_) {
    sender_->Detach();  // a backend's late call on it finds the request gone
    sender_.reset();
  }
  cache_miss.reset();
  admission.Release();
  std::shared_ptr<BoundModel> model = std::move(model_);
  if (model) model->OnRequestReleased();
  model.reset();
  if (release_fn != nullptr) release_fn(reinterpret_cast<INFERD_InferenceRequest*>(this),
                                        INFERD_REQUEST_RELEASE_ALL, release_userp);
}

}  // namespace inferd

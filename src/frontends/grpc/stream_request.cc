// One request of a stream, from submission to its last response.
#include "grpc/stream_request.h"

#include <utility>

#include "common/server_error.h"
#include "grpc/infer_request_builder.h"
#include "grpc/infer_response_builder.h"
#include "grpc/stream_reactor.h"

namespace inferd::grpc_frontend {

StreamRequest::StreamRequest(StreamReactor& stream) : stream_(stream) {
  outputs_.message = &infer_response_;
}

StreamRequest::~StreamRequest() {
  if (request_ != nullptr) DiscardServerError(INFERD_InferenceRequestDelete(request_));
}

namespace {

constexpr char kEnableEmptyFinal[] = "triton_enable_empty_final_response";
constexpr char kFinalResponse[] = "triton_final_response";
constexpr char kErrorCode[] = "error_code";
constexpr char kRetryAfterMs[] = "retry_after_ms";

void MarkFinal(bool final, inference::ModelStreamInferResponse* message) {
  (*message->mutable_infer_response()->mutable_parameters())[kFinalResponse].set_bool_param(final);
}

}  // namespace

Status StreamRequest::Submit(const ServiceContext& service, uint32_t priority) {
  // The request builder refuses a value that is not a boolean.
  const auto enable = message_.parameters().find(kEnableEmptyFinal);
  empty_final_response_ = enable != message_.parameters().end() && enable->second.bool_param();
  if (!stream_.forwarded().ok()) return stream_.forwarded().status();
  const BuildContext build{service.server, service.shared_memory, &memory_, &outputs_,
                           &stream_.forwarded().value(), &stream_.metadata(), priority};
  const RequestCallbacks callbacks{service.allocator, OnRelease, OnResponse, this};
  if (Status s = SubmitInferRequest(build, message_, &request_, callbacks); !s.ok()) {
    return s;
  }
  submitted_.store(true, std::memory_order_release);
  return Status::Ok();
}

inference::ModelStreamInferResponse StreamRequest::ErrorResponse(
    const Status& status) const {
  inference::ModelStreamInferResponse response;
  response.set_error_message(status.message());
  // The id tells the client which of its requests failed.
  inference::ModelInferResponse* infer = response.mutable_infer_response();
  infer->set_id(message_.id());
  infer->set_model_name(message_.model_name());
  infer->set_model_version(message_.model_version());
  // A refusal with retry advice (admission control, a key's quota): its
  // code and the advice where a client can read them without parsing the
  // message (docs/admission-control.md), as the trailers of a unary call.
  if (const uint64_t ms = status.retry_after_ms(); ms != 0) {
    auto& parameters = *infer->mutable_parameters();
    parameters[kErrorCode].set_string_param("RESOURCE_EXHAUSTED");
    parameters[kRetryAfterMs].set_int64_param(static_cast<int64_t>(ms));
  }
  return response;
}

void StreamRequest::Cancel() {
  if (submitted_.load(std::memory_order_acquire)) {
    DiscardServerError(INFERD_InferenceRequestCancel(request_));
  }
}

bool StreamRequest::TryRef() {
  int refs = refs_.load(std::memory_order_relaxed);
  while (refs > 0) {
    if (refs_.compare_exchange_weak(refs, refs + 1, std::memory_order_relaxed)) return true;
  }
  return false;
}

void StreamRequest::Unref() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) stream_.RequestDone(this);
}

void StreamRequest::OnRelease(INFERD_InferenceRequest*, uint32_t flags, void* userp) {
  if ((flags & INFERD_REQUEST_RELEASE_ALL) == 0) return;
  static_cast<StreamRequest*>(userp)->Unref();
}

inference::ModelStreamInferResponse StreamRequest::Complete(INFERD_InferenceResponse* response) {
  const Status status = BuildInferResponse(response, outputs_);
  if (!status.ok()) return ErrorResponse(status);
  inference::ModelStreamInferResponse message;
  // A swap moves the outputs without copying; a decoupled model's next
  // response is allocated into the (now empty) infer_response_.
  message.mutable_infer_response()->Swap(&infer_response_);
  return message;
}

inference::ModelStreamInferResponse StreamRequest::EmptyFinal() const {
  inference::ModelStreamInferResponse message;
  inference::ModelInferResponse* infer = message.mutable_infer_response();
  infer->set_id(message_.id());
  infer->set_model_name(message_.model_name());
  infer->set_model_version(message_.model_version());
  MarkFinal(true, &message);
  return message;
}

void StreamRequest::OnResponse(INFERD_InferenceResponse* response, uint32_t flags, void* userp) {
  auto* self = static_cast<StreamRequest*>(userp);
  const bool final = (flags & INFERD_RESPONSE_COMPLETE_FINAL) != 0;
  if (response != nullptr) {
    inference::ModelStreamInferResponse message = self->Complete(response);
    DiscardServerError(INFERD_InferenceResponseDelete(response));
    MarkFinal(final, &message);
    self->stream_.Send(std::move(message));
  } else if (final && self->empty_final_response_) {
    self->stream_.Send(self->EmptyFinal());
  }
  if (final) self->Unref();  // may delete self
}

}  // namespace inferd::grpc_frontend

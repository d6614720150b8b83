// A unary ModelInfer call on the completion queue, driven by server callbacks.
#include "grpc/infer_reactor.h"

#include "common/auth/credential_headers.h"
#include "common/server_error.h"
#include "grpc/access_check.h"
#include "grpc/grpc_status.h"
#include "grpc/infer_request_builder.h"
#include "grpc/infer_response_builder.h"
#include "grpc/method_category.h"

namespace inferd::grpc_frontend {

InferReactor::InferReactor(const CallSite& site)
    : UnaryQueueCall(site.queue, site.live, nullptr),
      site_(site),
      arena_(first_block_, sizeof(first_block_)),
      message_(google::protobuf::Arena::CreateMessage<inference::ModelInferRequest>(&arena_)),
      response_(google::protobuf::Arena::CreateMessage<inference::ModelInferResponse>(&arena_)) {
  set_response(response_);
  outputs_.message = response_;
}

InferReactor::~InferReactor() {
  if (request_ != nullptr) DiscardServerError(INFERD_InferenceRequestDelete(request_));
}

void InferReactor::Await(const CallSite& site) {
  auto* call = new InferReactor(site);
  call->QueueCall::Await();
}

void InferReactor::RequestCall(grpc::ServerCompletionQueue* queue, void* tag) {
  site_.service->RequestModelInfer(context(), message_, writer(), queue, queue, tag);
}

void InferReactor::OnArrived() {
  Await(site_);
  constexpr ApiCategory kCategory = CategoryOfMethod("ModelInfer");
  // With --auth-file the key's check also gives its priority (0: the model's default).
  grpc::Status refusal = CallRefusal(*site_.context, kCategory, message_->model_name(),
                                     *context(), /*stream=*/false, &priority_);
  if (!refusal.ok()) {
    Finish(refusal);
    return;
  }
  if (site_.context->infer_compression != GRPC_COMPRESS_LEVEL_NONE) {
    context()->set_compression_level(site_.context->infer_compression);
  }
  if (Status s = Submit(); !s.ok()) {
    AddRetryAdvice(s, context());
    Finish(ToGrpcStatus(s));
  }
}

Status InferReactor::Submit() {
  const ServiceContext& service = *site_.context;
  const auto& metadata = context()->client_metadata();
  if (Status s = CollectForwardedMetadata(service.header_forwarder, metadata, &forwarded_);
      !s.ok()) {
    return s;
  }
  if (service.access != nullptr) auth::DropCredentialHeaders(&forwarded_);
  const BuildContext build{service.server, service.shared_memory, &memory_, &outputs_,
                           &forwarded_, &metadata, priority_};
  // One response per call: a decoupled model is refused (UNIMPLEMENTED)
  // rather than cut short to its first response. The call takes its
  // response inside Submit too (pending_), so a short model may run on the
  // queue's thread instead of waking an instance thread, unless that thread
  // falls behind (QueueLoad).
  const bool on_this_thread = !site_.load->behind();
  const RequestCallbacks callbacks{service.allocator, OnRelease, OnResponse, this,
                                   /*single_response=*/true, on_this_thread};
  if (Status s = SubmitInferRequest(build, *message_, &request_, callbacks); !s.ok()) {
    return s;
  }
  submitted_ = true;
  Arrive();
  return Status::Ok();
}

void InferReactor::OnCancel() {
  if (submitted_) DiscardServerError(INFERD_InferenceRequestCancel(request_));
}

void InferReactor::OnRelease(INFERD_InferenceRequest*, uint32_t flags, void* userp) {
  if ((flags & INFERD_REQUEST_RELEASE_ALL) == 0) return;
  static_cast<InferReactor*>(userp)->Arrive();
}

void InferReactor::OnResponse(INFERD_InferenceResponse* response, uint32_t flags, void* userp) {
  auto* self = static_cast<InferReactor*>(userp);
  if (response != nullptr) {
    // A unary call carries one response. The server refuses decoupled models
    // here (single_response), so a second one would be the server's fault: dropped.
    if (!self->responded_) {
      self->responded_ = true;
      self->status_ = BuildInferResponse(response, self->outputs_);
      self->raw_outputs_ = self->response_->raw_output_contents_size();
      const char* traceparent = "";
      DiscardServerError(INFERD_InferenceResponseTraceParent(response, &traceparent));
      if (*traceparent != '\0') self->traceresponse_ = traceparent;
    }
    DiscardServerError(INFERD_InferenceResponseDelete(response));
  }
  if ((flags & INFERD_RESPONSE_COMPLETE_FINAL) == 0) return;
  if (!self->responded_) {
    self->status_ = Status::Internal("the model returned no response");
  }
  // Entries the dropped responses allocated.
  auto* raw = self->response_->mutable_raw_output_contents();
  while (raw->size() > self->raw_outputs_) raw->RemoveLast();
  self->Arrive();
}

void InferReactor::Arrive() {
  if (pending_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  if (!traceresponse_.empty()) context()->AddInitialMetadata("traceresponse", traceresponse_);
  Finish(ToGrpcStatus(status_));
}

}  // namespace inferd::grpc_frontend

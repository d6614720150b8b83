// The ModelStreamInfer reactor: reads, submits, writes, finishes.
#include "grpc/stream_reactor.h"

#include "common/auth/credential_headers.h"
#include "grpc/access_check.h"
#include "grpc/infer_request_builder.h"
#include "grpc/method_category.h"

#include <chrono>
#include <utility>
#include <vector>

#include "grpc/stream_registry.h"

namespace inferd::grpc_frontend {

namespace {

StatusOr<ForwardedHeaders> ForwardedMetadata(const ServiceContext& service,
                                             const grpc::ServerContext& context) {
  ForwardedHeaders forwarded;
  if (Status s = CollectForwardedMetadata(service.header_forwarder, context.client_metadata(),
                                          &forwarded);
      !s.ok()) {
    return s;
  }
  if (service.access != nullptr) auth::DropCredentialHeaders(&forwarded);
  return forwarded;
}

}  // namespace

StreamReactor::StreamReactor(const CallSite& site)
    : BidiQueueCall(site.queue, site.live), site_(site), service_(*site.context),
      forwarded_(ForwardedHeaders{}) {}

StreamReactor::~StreamReactor() = default;

void StreamReactor::Await(const CallSite& site) {
  auto* call = new StreamReactor(site);
  call->QueueCall::Await();
}

void StreamReactor::RequestCall(grpc::ServerCompletionQueue* queue, void* tag) {
  site_.service->RequestModelStreamInfer(context(), stream(), queue, queue, tag);
}

void StreamReactor::OnArrived() {
  Await(site_);
  constexpr ApiCategory kCategory = CategoryOfMethod("ModelStreamInfer");
  metadata_ = &context()->client_metadata();
  // Each request of the stream is checked against the key's models as it comes.
  if (grpc::Status refusal =
          CallRefusal(service_, kCategory, std::nullopt, *context(), /*stream=*/true);
      !refusal.ok()) {
    {
      MutexLock lock(&mu_);
      finished_ = true;
    }
    Finish(refusal);
    return;
  }
  forwarded_ = ForwardedMetadata(service_, *context());
  if (service_.infer_compression != GRPC_COMPRESS_LEVEL_NONE) {
    context()->set_compression_level(service_.infer_compression);
  }
  // Reading before the stream is registered: from then on the exit's drain
  // may finish it from another thread, and a read is not to start after
  // that. Its reaction runs on this thread, so not before this returns.
  ReadNext();
  if (service_.streams != nullptr && !service_.streams->Add(this)) {
    // Opened while the server drains for its exit; the read ends with the call.
    {
      MutexLock lock(&mu_);
      finished_ = true;
    }
    FinishForExit();
  }
}

void StreamReactor::ReadNext() {
  reading_ = std::make_unique<StreamRequest>(*this);
  StartRead(&reading_->message());
}

void StreamReactor::OnReadDone(bool ok) {
  bool exiting = false;
  {
    MutexLock lock(&mu_);
    exiting = exiting_;
  }
  if (!ok || exiting) {  // exiting: a request read after the drain began is dropped
    grpc::Status status;
    bool finish = false;
    {
      MutexLock lock(&mu_);
      reads_done_ = true;
      finish = TakeFinish(&status);
    }
    if (finish) Finish(status);
    return;
  }
  // Owned by its references from here on; Submit holds the submitter's.
  StreamRequest* request = reading_.release();
  {
    // Registered before the next read: while a request is in flight the
    // stream cannot finish, even if that read ends it at once.
    MutexLock lock(&mu_);
    in_flight_.insert(request);
  }
  // Submitted before the next read starts: OnReadDone of the next message
  // may run on another thread at once, and requests of a stream must reach
  // the server in the order they came (a sequence's START before its next
  // request). Submit only enqueues, so the next request still arrives while
  // this one runs.
  Submit(request);
  ReadNext();
}

Status StreamReactor::CheckKey(StreamRequest& request, uint32_t* priority) const {
  if (service_.access == nullptr) return Status::Ok();
  const auth::AccessDecision decision = service_.access->Check(
      AuthorizationOf(*metadata_), auth::Scope::kInfer, request.message().model_name());
  if (decision.allowed()) {
    if (decision.key->priority) *priority = *decision.key->priority;
    return Status::Ok();
  }
  // In-band, as any request's error, with the quota's retry advice
  // (StreamRequest::ErrorResponse).
  if (decision.verdict == auth::Verdict::kRateLimited) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(decision.retry_after);
    return Status::ResourceExhausted(decision.message, static_cast<uint64_t>(ms.count()));
  }
  return Status::InvalidArg(decision.message);
}

void StreamReactor::Submit(StreamRequest* submitted) {
  uint32_t priority = 0;  // the model's default, unless the key names one
  Status status = CheckKey(*submitted, &priority);
  if (status.ok()) status = submitted->Submit(service_, priority);
  if (!status.ok()) {
    Send(submitted->ErrorResponse(status));
    submitted->Unref();  // the server's two references: nothing is in flight
    submitted->Unref();
  } else {
    bool cancelled = false;
    {
      MutexLock lock(&mu_);
      cancelled = broken_;
    }
    // OnCancel may have looked before the request was submitted.
    if (cancelled) submitted->Cancel();
  }
  submitted->Unref();
}

void StreamReactor::Send(Message message) {
  const Message* next = nullptr;
  grpc::WriteOptions options;
  {
    MutexLock lock(&mu_);
    if (broken_ || finished_) return;
    writes_.push_back(std::move(message));
    next = TakeNextWrite(&options);
  }
  if (next != nullptr) StartWrite(next, options);
}

const StreamReactor::Message* StreamReactor::TakeNextWrite(grpc::WriteOptions* options) {
  if (writing_ || writes_.empty()) return nullptr;
  writing_ = true;
  if (writes_.size() > 1) options->set_buffer_hint();
  // push_back never moves the front element, so the pointer stays valid
  // until OnWriteDone pops it.
  return &writes_.front();
}

void StreamReactor::OnWriteDone(bool ok) {
  const Message* next = nullptr;
  grpc::WriteOptions options;
  grpc::Status status;
  bool finish = false;
  {
    MutexLock lock(&mu_);
    writes_.pop_front();
    writing_ = false;
    if (!ok) {
      broken_ = true;  // the client is gone; OnCancel cancels what is in flight
      writes_.clear();
    }
    next = TakeNextWrite(&options);
    // A write started now finishes the call from its own OnWriteDone.
    if (next == nullptr) finish = TakeFinish(&status);
  }
  if (next != nullptr) StartWrite(next, options);
  if (finish) Finish(status);
}

void StreamReactor::OnCancel() {
  std::vector<StreamRequest*> to_cancel;
  {
    MutexLock lock(&mu_);
    broken_ = true;
    // The write in progress, if any, stays until OnWriteDone.
    while (writes_.size() > (writing_ ? 1u : 0u)) writes_.pop_back();
    for (StreamRequest* request : in_flight_) {
      if (request->TryRef()) to_cancel.push_back(request);
    }
  }
  // Outside the lock: a cancelled request may complete, and call back, at once.
  for (StreamRequest* request : to_cancel) {
    request->Cancel();
    request->Unref();
  }
}

void StreamReactor::RequestDone(StreamRequest* request) {
  grpc::Status status;
  bool finish = false;
  {
    MutexLock lock(&mu_);
    in_flight_.erase(request);
    delete request;
    finish = TakeFinish(&status);
  }
  if (finish) Finish(status);
}

bool StreamReactor::TakeFinish(grpc::Status* status) {
  if (finished_ || !reads_done_ || writing_ || !writes_.empty() || !in_flight_.empty()) {
    return false;
  }
  finished_ = true;
  *status = broken_    ? grpc::Status::CANCELLED
            : exiting_ ? grpc::Status(grpc::StatusCode::UNAVAILABLE, "the server is exiting")
                       : grpc::Status::OK;
  return true;
}

bool StreamReactor::EndForExit() {
  MutexLock lock(&mu_);
  exiting_ = true;
  reads_done_ = true;  // the read in progress ends with the call
  grpc::Status unused;
  return TakeFinish(&unused);
}

void StreamReactor::FinishForExit() {
  Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the server is exiting"));
}

void StreamReactor::OnDone() {
  if (service_.streams != nullptr) service_.streams->Remove(this);
}

}  // namespace inferd::grpc_frontend

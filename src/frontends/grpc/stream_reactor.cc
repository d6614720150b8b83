// The ModelStreamInfer reactor: reads, submits, writes, finishes.
#include "grpc/stream_reactor.h"

#include <utility>
#include <vector>

namespace inferd::grpc_frontend {

StreamReactor::StreamReactor(const ServiceContext& service, grpc::CallbackServerContext* context)
    : service_(service) {
  if (service.infer_compression != GRPC_COMPRESS_LEVEL_NONE) {
    context->set_compression_level(service.infer_compression);
  }
  ReadNext();
}

StreamReactor::~StreamReactor() = default;

void StreamReactor::ReadNext() {
  reading_ = std::make_unique<StreamRequest>(*this);
  StartRead(&reading_->message());
}

void StreamReactor::OnReadDone(bool ok) {
  if (!ok) {
    std::unique_lock lock(mu_);
    reads_done_ = true;
    return MaybeFinish(lock);
  }
  // Owned by its references from here on; Submit holds the submitter's.
  StreamRequest* request = reading_.release();
  {
    // Registered before the next read: while a request is in flight the
    // stream cannot finish, even if that read ends it at once.
    std::lock_guard lock(mu_);
    in_flight_.insert(request);
  }
  ReadNext();  // the next request may arrive while this one runs
  Submit(request);
}

void StreamReactor::Submit(StreamRequest* submitted) {
  if (const Status status = submitted->Submit(service_); !status.ok()) {
    Send(submitted->ErrorResponse(status));
    submitted->Unref();  // the server's two references: nothing is in flight
    submitted->Unref();
  } else {
    bool cancelled = false;
    {
      std::lock_guard lock(mu_);
      cancelled = broken_;
    }
    // OnCancel may have looked before the request was submitted.
    if (cancelled) submitted->Cancel();
  }
  submitted->Unref();
}

void StreamReactor::Send(inference::ModelStreamInferResponse message) {
  std::unique_lock lock(mu_);
  if (broken_) return;
  writes_.push_back(std::move(message));
  WriteNext(lock);
}

void StreamReactor::WriteNext(std::unique_lock<std::mutex>& lock) {
  if (writing_ || writes_.empty()) return;
  writing_ = true;
  // push_back never moves the front element, so the pointer stays valid.
  const inference::ModelStreamInferResponse* next = &writes_.front();
  lock.unlock();
  StartWrite(next);
  lock.lock();
}

void StreamReactor::OnWriteDone(bool ok) {
  std::unique_lock lock(mu_);
  writes_.pop_front();
  writing_ = false;
  if (!ok) {
    broken_ = true;  // the client is gone; OnCancel cancels what is in flight
    writes_.clear();
  }
  WriteNext(lock);
  MaybeFinish(lock);
}

void StreamReactor::OnCancel() {
  std::vector<StreamRequest*> to_cancel;
  {
    std::lock_guard lock(mu_);
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
  std::unique_lock lock(mu_);
  in_flight_.erase(request);
  delete request;
  MaybeFinish(lock);
}

void StreamReactor::MaybeFinish(std::unique_lock<std::mutex>& lock) {
  if (finished_ || !reads_done_ || writing_ || !writes_.empty() || !in_flight_.empty()) return;
  finished_ = true;
  const bool cancelled = broken_;
  lock.unlock();
  // Last use of this object: OnDone may delete it as soon as Finish is called.
  Finish(cancelled ? grpc::Status::CANCELLED : grpc::Status::OK);
}

void StreamReactor::OnDone() { delete this; }

}  // namespace inferd::grpc_frontend

// The ModelStreamInfer reactor: reads, submits, writes, finishes.
#include "frontends/grpc/stream_reactor.h"

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
  std::unique_ptr<StreamRequest> request = std::move(reading_);
  ReadNext();  // the next request may arrive while this one runs
  Submit(std::move(request));
}

void StreamReactor::Submit(std::unique_ptr<StreamRequest> request) {
  StreamRequest* submitted = request.get();
  {
    // Registered first: its callbacks may end it before Submit returns.
    std::lock_guard lock(mu_);
    in_flight_.insert(submitted);
  }
  const grpc::Status status = submitted->Submit(service_);
  if (status.ok()) {
    request.release();  // owned by the server's callbacks now
    return;
  }
  {
    std::lock_guard lock(mu_);
    in_flight_.erase(submitted);
  }
  Send(request->ErrorResponse(status));
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
    to_cancel.assign(in_flight_.begin(), in_flight_.end());
    for (StreamRequest* request : to_cancel) request->Ref();
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

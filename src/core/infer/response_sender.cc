#include "core/infer/response_sender.h"

#include "core/common/logging.h"
#include "core/infer/inference_request.h"
#include "core/infer/inference_response.h"
#include "core/infer/sender_registry.h"
#include "inferd/server.h"

namespace inferd {
namespace {

Status Ended(const char* what) {
  return Status::Internal(std::string("cannot ") + what +
                          ": the request already ended (its final response was sent, or its "
                          "model unloaded)");
}

}  // namespace

ResponseSender::ResponseSender(InferenceRequest* request, SenderRegistry* registry)
    : registry_(registry),
      model_name_(request->model_name()),
      request_id_(request->id),
      request_(request) {}

void ResponseSender::OpenHandle() {
  MutexLock lock(&mu_);
  ++handles_;
}

void ResponseSender::CloseHandle() {
  InferenceRequest* release = nullptr;
  {
    MutexLock lock(&mu_);
    if (--handles_ > 0 || !backend_released_ || request_ == nullptr) return;
    release = EndLocked(Status::Internal("model '" + request_->model_name() +
                                         "': the backend dropped the response sender of "
                                         "request '" + request_->id +
                                         "' without sending the final response"),
                        true);
  }
  Finish(release);
}

StatusOr<std::unique_ptr<InferenceResponse>> ResponseSender::NewResponse() {
  MutexLock lock(&mu_);
  if (request_ == nullptr || final_sent_) return Ended("create a response");
  return std::make_unique<InferenceResponse>(*request_);
}

Status ResponseSender::Send(std::unique_ptr<InferenceResponse> response, uint32_t flags,
                            Status error) {
  const bool final = (flags & INFERD_RESPONSE_COMPLETE_FINAL) != 0;
  if (response == nullptr && !final) {
    return Status::InvalidArg("a send without a response must carry the FINAL flag");
  }
  InferenceRequest* release = nullptr;
  {
    MutexLock lock(&mu_);
    if (request_ == nullptr || final_sent_) {
      const std::string what = "model '" + model_name_ + "': a response to request '" +
                               request_id_ + "' was sent after its final response";
      LOG_ERROR("{}; dropped", what);
      return Status::Internal(what + "; it was dropped");
    }
    if (response != nullptr) {
      InferenceResponse::Deliver(std::move(response), flags, std::move(error));
    } else {
      InferenceResponse::DeliverFinalFlag(*request_);
    }
    if (!final) return Status::Ok();
    final_sent_ = true;
    release = AfterFinalLocked();
  }
  Finish(release);
  return Status::Ok();
}

bool ResponseSender::BackendReleased() {
  {
    MutexLock lock(&mu_);
    if (request_ == nullptr) return true;
    if (!final_sent_ && handles_ > 0) {
      backend_released_ = true;
      return false;  // released at FINAL
    }
    if (!final_sent_) {
      EndLocked(Status::Internal("model '" + request_->model_name() +
                                 "': the backend released request '" + request_->id +
                                 "' without a final response"),
                false);
    }
    request_ = nullptr;  // its owner releases it now
  }
  if (registry_ != nullptr) registry_->Remove(this);
  return true;
}

bool ResponseSender::IsCancelled() {
  MutexLock lock(&mu_);
  return request_ == nullptr || final_sent_ || request_->IsCancelled();
}

void ResponseSender::ForceEnd(const Status& why) {
  InferenceRequest* release = nullptr;
  {
    MutexLock lock(&mu_);
    if (request_ == nullptr) return;
    LOG_ERROR("{}", why.message());
    // The backend finalized: it must not touch the request any more, so the
    // request goes now whether or not the backend released it.
    release = EndLocked(why, true);
  }
  Finish(release);
}

InferenceRequest* ResponseSender::EndLocked(const Status& why, bool release_now) {
  if (!final_sent_) {
    final_sent_ = true;
    // Delivered directly: Send would take mu_ again.
    InferenceResponse::Deliver(std::make_unique<InferenceResponse>(*request_, why),
                               INFERD_RESPONSE_COMPLETE_FINAL, why);
  }
  InferenceRequest* request = request_;
  request_ = nullptr;
  return release_now || backend_released_ ? request : nullptr;
}

InferenceRequest* ResponseSender::AfterFinalLocked() {
  if (!backend_released_) return nullptr;  // the backend's release comes later
  InferenceRequest* request = request_;
  request_ = nullptr;
  return request;
}

void ResponseSender::Detach() {
  MutexLock lock(&mu_);
  request_ = nullptr;
  final_sent_ = true;
}

void ResponseSender::Finish(InferenceRequest* request) {
  const std::shared_ptr<ResponseSender> keep = shared_from_this();  // Release may drop the last other reference
  // The request ended (FINAL sent): nothing is left for an unload to end.
  if (registry_ != nullptr) registry_->Remove(this);
  if (request != nullptr) request->Release();
}

}  // namespace inferd

#include "request_reply.h"

#include "backend_io.h"

namespace inferd::python {

StatusOr<RequestReply> RequestReply::Open(INFERD_Request* request, bool decoupled) {
  RequestReply reply;
  reply.request_ = request;
  if (decoupled) {
    if (Status s = FromError(INFERD_ResponseSenderNew(&reply.sender_, request)); !s.ok()) {
      reply.request_ = nullptr;  // the caller still owns it and answers it
      return s;
    }
  }
  return reply;
}

void RequestReply::Detach() {
  if (sender_ == nullptr || request_ == nullptr) return;
  INFERD_ErrorDelete(INFERD_RequestRelease(request_, INFERD_REQUEST_RELEASE_ALL));
  request_ = nullptr;
}

void RequestReply::Close() {
  if (sender_ != nullptr) INFERD_ErrorDelete(INFERD_ResponseSenderDelete(sender_));
  if (request_ != nullptr) {
    INFERD_ErrorDelete(INFERD_RequestRelease(request_, INFERD_REQUEST_RELEASE_ALL));
  }
  sender_ = nullptr;
  request_ = nullptr;
}

Status RequestReply::Send(const ResponseView& response, bool final) {
  const uint32_t flags = final ? INFERD_RESPONSE_COMPLETE_FINAL : 0;
  Status sent = sender_ != nullptr ? SendResponse(sender_, response, flags)
                                   : SendResponse(request_, response, flags);
  if (final) Close();
  return sent;
}

Status RequestReply::SendError(const Status& error, bool final) {
  const uint32_t flags = final ? INFERD_RESPONSE_COMPLETE_FINAL : 0;
  Status sent = sender_ != nullptr ? python::SendError(sender_, error, flags)
                                   : python::SendError(request_, error, flags);
  if (final) Close();
  return sent;
}

Status RequestReply::SendFinal() {
  Status sent;
  if (sender_ == nullptr && request_ != nullptr) {
    // The request answers FINAL alone only through a sender.
    sent = FromError(INFERD_ResponseSenderNew(&sender_, request_));
  }
  if (sent.ok() && sender_ != nullptr) {
    sent = FromError(INFERD_ResponseSenderSendFlags(sender_, INFERD_RESPONSE_COMPLETE_FINAL));
  }
  Close();
  return sent;
}

Status RequestReply::Reschedule() {
  if (request_ == nullptr) {
    // Detached (a decoupled model that is not iterative): the core cannot be asked.
    return Status::InvalidArg(
        "Request is released with TRITONSERVER_REQUEST_RELEASE_RESCHEDULE, while the model is "
        "not configured to handle such a flag (rescheduling needs sequence_batching { "
        "iterative_sequence: true })");
  }
  RETURN_IF_ERROR(FromError(INFERD_RequestRelease(request_, INFERD_REQUEST_RELEASE_RESCHEDULE)));
  request_ = nullptr;
  // The next execution opens a handle of its own on the same sender.
  if (sender_ != nullptr) INFERD_ErrorDelete(INFERD_ResponseSenderDelete(sender_));
  sender_ = nullptr;
  return Status::Ok();
}

bool RequestReply::IsCancelled() const {
  bool cancelled = true;
  if (sender_ != nullptr) {
    INFERD_ErrorDelete(INFERD_ResponseSenderIsCancelled(sender_, &cancelled));
  } else if (request_ != nullptr) {
    INFERD_ErrorDelete(INFERD_RequestIsCancelled(request_, &cancelled));
  }
  return cancelled;
}

}  // namespace inferd::python

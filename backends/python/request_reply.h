// Where one request's responses go: the request itself (a model that is not
// decoupled: one response, the request released after it, the cheaper path)
// or a response sender (decoupled: any number, from the supervisor thread,
// after execute returned). Not thread-safe; one owner at a time (the
// StubInstance hands it from Execute to whichever thread reads the response).
#ifndef INFERD_BACKENDS_PYTHON_REQUEST_REPLY_H_
#define INFERD_BACKENDS_PYTHON_REQUEST_REPLY_H_

#include <utility>

#include "inferd/backend.h"
#include "inferd/base/status.h"
#include "wire_format.h"

namespace inferd::python {

class RequestReply {
 public:
  RequestReply() = default;
  RequestReply(RequestReply&& other) noexcept
      : request_(std::exchange(other.request_, nullptr)),
        sender_(std::exchange(other.sender_, nullptr)) {}
  RequestReply& operator=(RequestReply&& other) noexcept {
    std::swap(request_, other.request_);
    std::swap(sender_, other.sender_);
    return *this;
  }
  RequestReply(const RequestReply&) = delete;
  RequestReply& operator=(const RequestReply&) = delete;
  // Whatever is still owned goes back unanswered (a bug upstream): released.
  ~RequestReply() { Close(); }
  // Takes ownership of `request`; with `decoupled` the request is released as
  // soon as its inputs are copied (Detach) and a sender answers it.
  static StatusOr<RequestReply> Open(INFERD_Request* request, bool decoupled);

  // Gives the request back to the server once its inputs were copied, when a
  // sender answers it.
  void Detach();
  // Sends a response (`final`: the request's last). After a final send the
  // reply is closed: the request released, the sender deleted.
  Status Send(const ResponseView& response, bool final);
  Status SendError(const Status& error, bool final);
  // Ends the request without a last response.
  Status SendFinal();
  // Gives the request back to be executed again (INFERD_REQUEST_RELEASE_RESCHEDULE)
  // and closes the reply. On error (the model does not reschedule, or the
  // request was detached) the reply is still open: the caller answers it.
  Status Reschedule();
  bool IsCancelled() const;
  INFERD_Request* request() const { return request_; }

 private:
  void Close();

  INFERD_Request* request_ = nullptr;         // owned until released
  INFERD_ResponseSender* sender_ = nullptr;   // owned until deleted
};

}  // namespace inferd::python

#endif  // INFERD_BACKENDS_PYTHON_REQUEST_REPLY_H_

// The sending side of one request once its backend took a response sender
// (backend.h INFERD_ResponseSender), the way decoupled models answer: any
// number of responses, from any thread, during or after execute, ended by
// FINAL. The sender serializes sends, refuses any after FINAL, keeps the
// request (its inputs included) alive past the backend's release until
// FINAL, and ends the request with an error when the backend drops it (no
// handle left, request released, no FINAL) or its model finalizes first.
//
// Lifetime: shared by the request and by each backend handle; it outlives the
// request, whose pointer it drops (under mu_) the moment the request ends.
// Thread-safe.
#ifndef INFERD_CORE_INFER_RESPONSE_SENDER_H_
#define INFERD_CORE_INFER_RESPONSE_SENDER_H_

#include <memory>
#include <string>

#include "inferd/base/mutex.h"
#include "inferd/base/status.h"
#include "inferd/base/thread_annotations.h"

namespace inferd {

class InferenceRequest;
class InferenceResponse;
class SenderRegistry;

class ResponseSender : public std::enable_shared_from_this<ResponseSender> {
 public:
  // `registry` (the model's; may be null in tests) learns of the sender while
  // the request is open, so that an unload can end what the backend left open.
  ResponseSender(InferenceRequest* request, SenderRegistry* registry);
  ResponseSender(const ResponseSender&) = delete;
  ResponseSender& operator=(const ResponseSender&) = delete;

  // A backend handle was opened, or deleted. Deleting the last handle of a
  // request the backend released without FINAL ends it with an error.
  void OpenHandle() EXCLUDES(mu_);
  void CloseHandle() EXCLUDES(mu_);

  // A new response to the request; an error once the request ended.
  StatusOr<std::unique_ptr<InferenceResponse>> NewResponse() EXCLUDES(mu_);

  // Delivers `response` (null: `flags` alone, which must then hold FINAL)
  // with `error`. An error, and nothing delivered, once the request ended.
  // The client's response callback runs under this sender's lock, which
  // orders deliveries; server.h forbids a callback to call back into the
  // server for the same request, so it cannot deadlock.
  Status Send(std::unique_ptr<InferenceResponse> response, uint32_t flags, Status error)
      EXCLUDES(mu_);

  // The backend released the request: true when it may be released now
  // (FINAL was sent, or no handle is open to send it); false when this sender
  // releases it at FINAL.
  bool BackendReleased() EXCLUDES(mu_);

  // Runs `allocate` (which calls the client's allocator) unless the request
  // ended: the client may have freed what its allocator writes into.
  template <typename Allocate>
  Status AllocateWhileOpen(Allocate&& allocate) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    if (request_ == nullptr || final_sent_) {
      return Status::Internal("cannot allocate an output: the request already ended (its final "
                              "response was sent, or its model unloaded)");
    }
    return allocate();
  }

  // The request was cancelled, timed out, or already ended.
  bool IsCancelled() EXCLUDES(mu_);

  // The model finalized: a request still open is ended with `why` and released.
  void ForceEnd(const Status& why) EXCLUDES(mu_);

  // The request is being released by its owner: forget it.
  void Detach() EXCLUDES(mu_);

 private:
  // Ends the request with an error response unless FINAL was sent, and
  // returns it when it is to be released now (after mu_ is let go), else null.
  InferenceRequest* EndLocked(const Status& why, bool release_now) REQUIRES(mu_);
  // After FINAL: forgets the request and returns it if the backend already
  // released it (the caller releases it once mu_ is let go).
  InferenceRequest* AfterFinalLocked() REQUIRES(mu_);
  // Releases `request` (if any) and leaves the registry; outside mu_.
  void Finish(InferenceRequest* request) EXCLUDES(mu_);

  SenderRegistry* const registry_;
  // Who the request was, for errors after it ended.
  std::string model_name_;
  std::string request_id_;
  Mutex mu_;
  InferenceRequest* request_ GUARDED_BY(mu_);  // null once the request ended
  bool final_sent_ GUARDED_BY(mu_) = false;
  bool backend_released_ GUARDED_BY(mu_) = false;
  int handles_ GUARDED_BY(mu_) = 0;
};

}  // namespace inferd

#endif  // INFERD_CORE_INFER_RESPONSE_SENDER_H_

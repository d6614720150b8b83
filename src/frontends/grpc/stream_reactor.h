// One ModelStreamInfer call: a bidirectional stream on which the client sends
// requests and the server answers each (in completion order, each response
// carrying its request's id) while more are read; many requests may be in
// flight at once. A request that fails is answered with an error_message and
// the stream stays open. When the client closes its side, the stream finishes
// once every request in flight has been answered; a cancelled call or a
// broken stream cancels the requests still queued. At the exit's drain an
// open stream ends UNAVAILABLE once its requests in flight are answered.
//
// Lifetime: queue_call.h; Finish is called only once no write or request is
// outstanding. Thread-safe; guarded by mu_.
#ifndef INFERD_FRONTENDS_GRPC_STREAM_REACTOR_H_
#define INFERD_FRONTENDS_GRPC_STREAM_REACTOR_H_

#include <deque>
#include <memory>
#include <unordered_set>

#include "grpc/call_site.h"
#include "grpc/queue_call.h"
#include "grpc/service_context.h"
#include "grpc/stream_request.h"
#include "grpc_service.pb.h"
#include "inferd/base/mutex.h"
#include "inferd/base/thread_annotations.h"

namespace inferd::grpc_frontend {

class StreamReactor final
    : public BidiQueueCall<inference::ModelInferRequest, inference::ModelStreamInferResponse> {
 public:
  // Asks gRPC for the next ModelStreamInfer call on the site's queue.
  static void Await(const CallSite& site);

  // Queues `message` for the client; dropped once the stream is cancelled or
  // broken. Any thread.
  void Send(inference::ModelStreamInferResponse message) EXCLUDES(mu_);

  // The stream's metadata that every request forwards as parameters, or why
  // they cannot (a reserved name matched). Constant once the call arrived;
  // any thread.
  const StatusOr<ForwardedHeaders>& forwarded() const { return forwarded_; }
  // The call's metadata: its traceparent makes every request of the stream
  // join the caller's trace. Valid while the call runs.
  const std::multimap<grpc::string_ref, grpc::string_ref>& metadata() const { return *metadata_; }

  // Takes back a request the server is done with and deletes it. Any thread.
  void RequestDone(StreamRequest* request) EXCLUDES(mu_);

  // The exit's drain (StreamRegistry::BeginDrain): reads no more requests
  // and ends the call UNAVAILABLE once those in flight are answered. True
  // when nothing is outstanding, and the caller is to Finish it now
  // (FinishForExit).
  bool EndForExit() EXCLUDES(mu_);
  void FinishForExit();

 private:
  using Message = inference::ModelStreamInferResponse;

  explicit StreamReactor(const CallSite& site);
  ~StreamReactor() override;

  void RequestCall(grpc::ServerCompletionQueue* queue, void* tag) override;
  // Awaits the next stream, then checks this one's opening and reads its
  // first request.
  void OnArrived() override EXCLUDES(mu_);
  void OnReadDone(bool ok) override EXCLUDES(mu_);
  void OnWriteDone(bool ok) override EXCLUDES(mu_);
  void OnCancel() override EXCLUDES(mu_);
  void OnDone() override;

  void ReadNext();
  // Submits a request registered in in_flight_ and drops the submitter's
  // reference; a request that fails is answered with its error.
  void Submit(StreamRequest* request) EXCLUDES(mu_);
  // With --auth-file: whether the stream's key may infer with the request's
  // model (and is within its quota), and then the key's priority in
  // *priority; the error its response carries if not.
  Status CheckKey(StreamRequest& request, uint32_t* priority) const;
  // The next message to write, with the write marked as running; null when a
  // write runs already or nothing is queued. The caller starts the write
  // with `options` once it has released mu_: while more messages wait behind
  // it, gRPC may buffer it and send several in one frame (the last queued
  // message is always written without the hint, which flushes).
  const Message* TakeNextWrite(grpc::WriteOptions* options) REQUIRES(mu_);
  // Whether the call is to finish now, nothing being outstanding any more;
  // true only once. The caller then calls Finish(*status) after releasing
  // mu_, and touches nothing after it (OnDone may delete this at once).
  bool TakeFinish(grpc::Status* status) REQUIRES(mu_);

  // Constant after construction.
  const CallSite& site_;
  const ServiceContext& service_;
  // Constant once the call arrived (before any request is read).
  StatusOr<ForwardedHeaders> forwarded_;
  const std::multimap<grpc::string_ref, grpc::string_ref>* metadata_ = nullptr;
  // The request being read into; touched by the read reactions only, which
  // never run concurrently.
  std::unique_ptr<StreamRequest> reading_;

  Mutex mu_;
  // Messages to write; the front one is being written while writing_.
  std::deque<Message> writes_ GUARDED_BY(mu_);
  bool writing_ GUARDED_BY(mu_) = false;
  bool reads_done_ GUARDED_BY(mu_) = false;  // the client closed its side, or the call ended
  bool broken_ GUARDED_BY(mu_) = false;      // cancelled, or a write failed: nothing more is sent
  bool finished_ GUARDED_BY(mu_) = false;    // TakeFinish said yes
  bool exiting_ GUARDED_BY(mu_) = false;     // EndForExit: finishes UNAVAILABLE
  std::unordered_set<StreamRequest*> in_flight_ GUARDED_BY(mu_);  // submitted requests
};

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_STREAM_REACTOR_H_

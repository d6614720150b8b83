// One ModelStreamInfer call: a bidirectional stream on which the client sends
// requests and the server answers each (in completion order, each response
// carrying its request's id) while more are read; many requests may be in
// flight at once. A request that fails is answered with an error_message and
// the stream stays open. When the client closes its side, the stream finishes
// once every request in flight has been answered; a cancelled call or a
// broken stream cancels the requests still queued.
//
// Lifetime: created by the service's ModelStreamInfer handler, deleted by
// OnDone, which gRPC calls only after Finish; Finish is called only once no
// read, write or request is outstanding. Thread-safe; guarded by mu_.
#ifndef INFERD_FRONTENDS_GRPC_STREAM_REACTOR_H_
#define INFERD_FRONTENDS_GRPC_STREAM_REACTOR_H_

#include <grpcpp/server_context.h>
#include <grpcpp/support/server_callback.h>

#include <deque>
#include <memory>
#include <mutex>
#include <unordered_set>

#include "grpc/service_context.h"
#include "grpc/stream_request.h"
#include "grpc_service.pb.h"

namespace inferd::grpc_frontend {

class StreamReactor : public grpc::ServerBidiReactor<inference::ModelInferRequest,
                                                     inference::ModelStreamInferResponse> {
 public:
  // Starts reading the first request.
  StreamReactor(const ServiceContext& service, grpc::CallbackServerContext* context);
  ~StreamReactor() override;
  StreamReactor(const StreamReactor&) = delete;
  StreamReactor& operator=(const StreamReactor&) = delete;

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

  // Queues `message` for the client; dropped once the stream is cancelled or
  // broken. Any thread.
  void Send(inference::ModelStreamInferResponse message);

  // Takes back a request the server is done with and deletes it. Any thread.
  void RequestDone(StreamRequest* request);

 private:
  void ReadNext();
  // Submits a request registered in in_flight_ and drops the submitter's
  // reference; a request that fails is answered with its error.
  void Submit(StreamRequest* request);
  // Starts the next write if one is queued and none is running.
  void WriteNext(std::unique_lock<std::mutex>& lock);
  // Finishes the call when nothing is outstanding any more; releases `lock`.
  void MaybeFinish(std::unique_lock<std::mutex>& lock);

  // Constant after construction.
  const ServiceContext& service_;
  // The request being read into; touched by the read reactions only, which
  // never run concurrently.
  std::unique_ptr<StreamRequest> reading_;

  std::mutex mu_;
  // Messages to write; the front one is being written while writing_.
  std::deque<inference::ModelStreamInferResponse> writes_;  // guarded by mu_
  bool writing_ = false;                                     // guarded by mu_
  bool reads_done_ = false;  // the client closed its side, or the call ended; guarded by mu_
  bool broken_ = false;      // cancelled, or a write failed: nothing more is sent; guarded by mu_
  bool finished_ = false;    // Finish was called; guarded by mu_
  std::unordered_set<StreamRequest*> in_flight_;  // submitted requests; guarded by mu_
};

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_STREAM_REACTOR_H_

// One ModelInfer call: builds the server request from the gRPC request
// message, whose raw_input_contents the server reads in place, submits it,
// and finishes the call once the server has both answered and released the
// request (so the message outlives every use of its memory). Outputs land in
// the response message through the OutputAllocator. Both messages live on
// the call's protobuf arena, whose first block is inside the call: parsing
// the request (its tensors, shapes, names, parameters) and building the
// response cost no allocation for a small request. A cancelled call cancels
// the server request. The request asks for a single response, so the
// server refuses a decoupled model (UNIMPLEMENTED, naming ModelStreamInfer)
// instead of this call dropping all but its first response.
//
// Lifetime: queue_call.h. Thread-safe: the queue's thread and server
// callbacks may run concurrently.
#ifndef INFERD_FRONTENDS_GRPC_INFER_REACTOR_H_
#define INFERD_FRONTENDS_GRPC_INFER_REACTOR_H_

#include <google/protobuf/arena.h>

#include <atomic>
#include <cstddef>
#include <string>

#include "grpc/call_site.h"
#include "grpc/infer_request_builder.h"
#include "grpc/output_destination.h"
#include "grpc/queue_call.h"
#include "grpc_service.pb.h"
#include "inferd/server.h"

namespace inferd::grpc_frontend {

class InferReactor final : public UnaryQueueCall<inference::ModelInferResponse> {
 public:
  // Asks gRPC for the next ModelInfer call on the site's queue.
  static void Await(const CallSite& site);

 private:
  explicit InferReactor(const CallSite& site);
  ~InferReactor() override;

  void RequestCall(grpc::ServerCompletionQueue* queue, void* tag) override;
  // Awaits the next call, then checks this one and submits it; errors before
  // submission finish it at once.
  void OnArrived() override;
  void OnCancel() override;

  Status Submit();
  static void OnRelease(INFERD_InferenceRequest* request, uint32_t flags, void* userp);
  static void OnResponse(INFERD_InferenceResponse* response, uint32_t flags, void* userp);
  // The release and the FINAL response each arrive once; the second finishes.
  void Arrive();

  // Holds a small request (a few tensors of a few KiB) and its response; a
  // larger one grows the arena block by block.
  static constexpr size_t kFirstBlockBytes = 4096;

  // Constant after construction.
  const CallSite& site_;
  alignas(std::max_align_t) char first_block_[kFirstBlockBytes];
  google::protobuf::Arena arena_;           // after first_block_, which it uses
  inference::ModelInferRequest* message_;   // on arena_
  inference::ModelInferResponse* response_; // on arena_; outputs are allocated in it
  // Typed contents converted for the server and shared memory inputs; freed
  // with the reactor.
  RequestMemory memory_;
  ForwardedHeaders forwarded_;  // the call's metadata set as parameters
  OutputDestination outputs_;  // into response_, or shared memory
  INFERD_InferenceRequest* request_ = nullptr;  // deleted with the reactor
  uint32_t priority_ = 0;  // the API key's, set by its check on arrival
  bool submitted_ = false;                      // constant once OnArrived returns
  // Written by the response callback only, read by the last Arrive.
  bool responded_ = false;
  int raw_outputs_ = 0;  // raw_output_contents the answered response holds
  Status status_;
  std::string traceresponse_;  // the traced request's traceparent; usually empty
  // The release, the final response, and Submit's return: a response cache
  // hit runs both callbacks inside INFERD_ServerInferAsync, and the call must
  // not finish (and be deleted) before Submit is done with the reactor.
  std::atomic<int> pending_{3};
};

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_INFER_REACTOR_H_

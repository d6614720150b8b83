// One ModelInfer call: builds the server request from the gRPC request
// message, whose raw_input_contents the server reads in place, submits it,
// and finishes the call once the server has both answered and released the
// request (so the message, owned by gRPC until then, outlives every use of
// its memory). Outputs land in the gRPC response message through the
// OutputAllocator. A cancelled call cancels the server request. The request
// asks for a single response, so the server refuses a decoupled model
// (UNIMPLEMENTED, naming ModelStreamInfer) instead of this call dropping all
// but its first response.
//
// Lifetime: created by the service's ModelInfer handler, deleted by OnDone.
// Thread-safe: gRPC reactions and server callbacks may run concurrently.
#ifndef INFERD_FRONTENDS_GRPC_INFER_REACTOR_H_
#define INFERD_FRONTENDS_GRPC_INFER_REACTOR_H_

#include <grpcpp/server_context.h>
#include <grpcpp/support/server_callback.h>

#include <atomic>
#include <memory>
#include <vector>

#include "grpc/infer_request_builder.h"
#include "grpc/output_destination.h"
#include "grpc/service_context.h"
#include "grpc_service.pb.h"
#include "inferd/server.h"

namespace inferd::grpc_frontend {

class InferReactor : public grpc::ServerUnaryReactor {
 public:
  // Starts the call; returns the reactor gRPC is to drive. Errors before
  // submission finish the call at once.
  static grpc::ServerUnaryReactor* Start(const ServiceContext& service,
                                         grpc::CallbackServerContext* context,
                                         const inference::ModelInferRequest* request,
                                         inference::ModelInferResponse* response);

  void OnCancel() override;
  void OnDone() override;
  // Both reactions are short and never block (OnCancel marks the server
  // request cancelled; OnDone frees the call's memory), so gRPC may run them
  // on the thread that completes the call instead of handing each call's
  // end to its executor threads: one thread wake-up less per call.
  bool InternalInlineable() override { return true; }

 private:
  InferReactor(const inference::ModelInferRequest& message,
               inference::ModelInferResponse& response);
  ~InferReactor() override;

  Status Submit(const ServiceContext& service, grpc::CallbackServerContext* context);
  static void OnRelease(INFERD_InferenceRequest* request, uint32_t flags, void* userp);
  static void OnResponse(INFERD_InferenceResponse* response, uint32_t flags, void* userp);
  // The release and the FINAL response each arrive once; the second finishes.
  void Arrive();

  // Constant after construction.
  const inference::ModelInferRequest& message_;  // owned by gRPC until OnDone
  inference::ModelInferResponse& response_;      // likewise; outputs are allocated in it
  // Typed contents converted for the server and shared memory inputs; freed
  // with the reactor.
  RequestMemory memory_;
  ForwardedHeaders forwarded_;  // the call's metadata set as parameters
  OutputDestination outputs_;  // into response_, or shared memory
  INFERD_InferenceRequest* request_ = nullptr;  // deleted with the reactor
  bool submitted_ = false;                      // constant once Start returns
  // Written by the response callback only, read by the last Arrive.
  bool responded_ = false;
  int raw_outputs_ = 0;  // raw_output_contents the answered response holds
  Status status_;
  std::string traceresponse_;  // the traced request's traceparent; usually empty
  grpc::CallbackServerContext* context_ = nullptr;  // set by Start
  // The release, the final response, and Submit's return: a response cache
  // hit runs both callbacks inside INFERD_ServerInferAsync, and the call must
  // not finish (and be deleted) before Submit is done with the reactor.
  std::atomic<int> pending_{3};
};

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_INFER_REACTOR_H_

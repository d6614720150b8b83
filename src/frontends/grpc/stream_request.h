// One request of a ModelStreamInfer stream: owns the request message read
// from the stream (the server reads its raw_input_contents in place), the
// server request, and the stream response its outputs are allocated into.
// Each response the server sends is completed and handed to the stream, in
// the order the server sends them; an error travels as the response's
// error_message with the request's id, and the request goes on.
//
// FINAL, as Triton marks it: every response carries the parameter
// triton_final_response (true on the one that ends the request). A FINAL
// without a response (a decoupled model ending its stream) sends nothing,
// unless the request set triton_enable_empty_final_response: then an empty
// response (id, model, version, no outputs) carries triton_final_response
// true, so the client learns that the request ended.
//
// Outputs: each response's outputs are allocated into infer_response_ and
// swapped out when it completes. This assumes the server builds one response
// of a request at a time, each completed (on this callback) before the next
// allocates.
//
// Lifetime: three references, dropped by the server's release callback, by
// the FINAL response and by the submitter once done with it (a canceller
// takes one more while it runs); the last one hands the request to
// StreamReactor::RequestDone, which deletes it. Thread-safe.
#ifndef INFERD_FRONTENDS_GRPC_STREAM_REQUEST_H_
#define INFERD_FRONTENDS_GRPC_STREAM_REQUEST_H_

#include <atomic>
#include <memory>
#include <vector>

#include "grpc/infer_request_builder.h"
#include "grpc/output_destination.h"
#include "grpc/service_context.h"
#include "grpc_service.pb.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::grpc_frontend {

class StreamReactor;

class StreamRequest {
 public:
  explicit StreamRequest(StreamReactor& stream);
  ~StreamRequest();
  StreamRequest(const StreamRequest&) = delete;
  StreamRequest& operator=(const StreamRequest&) = delete;

  // Where the stream reads the request into; not touched after Submit.
  inference::ModelInferRequest& message() { return message_; }

  // Builds and submits the server request, of `priority` unless it names
  // one (0: the model's default). On error nothing is in flight and the
  // server's two references are the caller's to drop.
  Status Submit(const ServiceContext& service, uint32_t priority);

  // The stream message reporting `status` for this request; a refusal with
  // retry advice adds the parameters error_code "RESOURCE_EXHAUSTED" and
  // retry_after_ms.
  inference::ModelStreamInferResponse ErrorResponse(const Status& status) const;

  // Asks the server to drop the request if it was submitted (best effort).
  // The caller holds a reference.
  void Cancel();

  // Takes a reference unless the last one is already gone (the request is
  // then on its way to RequestDone and must not be touched).
  bool TryRef();
  // Drops a reference; the last one hands the request to the stream.
  void Unref();

 private:
  static void OnRelease(INFERD_InferenceRequest* request, uint32_t flags, void* userp);
  static void OnResponse(INFERD_InferenceResponse* response, uint32_t flags, void* userp);
  // The stream message for a server response (which the caller deletes).
  inference::ModelStreamInferResponse Complete(INFERD_InferenceResponse* response);
  // The empty message that tells the client a request ended without a last response.
  inference::ModelStreamInferResponse EmptyFinal() const;

  StreamReactor& stream_;
  inference::ModelInferRequest message_;
  RequestMemory memory_;  // converted typed contents and shared memory inputs
  INFERD_InferenceRequest* request_ = nullptr;      // deleted with this object
  // Set once the server took request_; Cancel reads request_ only after it.
  std::atomic<bool> submitted_{false};
  // triton_enable_empty_final_response; set before submission.
  bool empty_final_response_ = false;
  // Where outputs are allocated; each completed response is swapped out of
  // it. Response callback only.
  inference::ModelInferResponse infer_response_;
  OutputDestination outputs_;  // into infer_response_, or shared memory; the allocator's userp
  std::atomic<int> refs_{3};
};

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_STREAM_REQUEST_H_

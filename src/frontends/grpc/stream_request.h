// One request of a ModelStreamInfer stream: owns the request message read
// from the stream (the server reads its raw_input_contents in place), the
// server request, and the stream response its outputs are allocated into.
// Each response the server sends is completed and handed to the stream; an
// error travels as the response's error_message with the request's id.
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

  // Builds and submits the server request. On error nothing is in flight and
  // the server's two references are the caller's to drop.
  Status Submit(const ServiceContext& service);

  // The stream message reporting `status` for this request.
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

  StreamReactor& stream_;
  inference::ModelInferRequest message_;
  RequestMemory memory_;  // converted typed contents and shared memory inputs
  INFERD_InferenceRequest* request_ = nullptr;      // deleted with this object
  // Set once the server took request_; Cancel reads request_ only after it.
  std::atomic<bool> submitted_{false};
  // Where outputs are allocated; each completed response is swapped out of
  // it. Response callback only.
  inference::ModelInferResponse infer_response_;
  OutputDestination outputs_;  // into infer_response_, or shared memory; the allocator's userp
  std::atomic<int> refs_{3};
};

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_STREAM_REQUEST_H_

// Turns a gRPC ModelInferRequest into a server request (INFERD_InferenceRequest):
// inputs from raw_input_contents are appended as borrowed memory, typed
// contents borrowed or converted (see tensor_contents.h), requested outputs and
// the protocol's parameters (sequence_id, sequence_start/end, priority,
// timeout) set, other parameters passed through to the model. The message and
// the converted buffers must outlive the server request, until its release
// callback. Thread-safe (no shared state).
#ifndef INFERD_FRONTENDS_GRPC_INFER_REQUEST_BUILDER_H_
#define INFERD_FRONTENDS_GRPC_INFER_REQUEST_BUILDER_H_

#include <grpcpp/support/status.h>

#include <memory>
#include <vector>

#include "grpc_service.pb.h"
#include "inferd/server.h"

namespace inferd::grpc_frontend {

// Creates *request from `message`. Typed contents that had to be converted
// are appended to *converted. On success the caller owns *request; on error
// nothing is left to free and the status names the model, input, output or
// parameter at fault: INVALID_ARGUMENT, UNIMPLEMENTED (shared memory,
// classification, floating-point parameters) or the server's error.
grpc::Status BuildInferRequest(INFERD_Server* server, const inference::ModelInferRequest& message,
                               std::vector<std::unique_ptr<char[]>>* converted,
                               INFERD_InferenceRequest** request);

// Where a submitted request's release and responses go.
struct RequestCallbacks {
  INFERD_ResponseAllocator* allocator = nullptr;
  void* allocator_userp = nullptr;
  INFERD_InferenceRequestReleaseFn release_fn = nullptr;
  INFERD_InferenceResponseCompleteFn response_fn = nullptr;
  void* userp = nullptr;  // for release_fn and response_fn
};

// BuildInferRequest, then the callbacks, then INFERD_ServerInferAsync. On
// error nothing was queued; a request already built stays in *request for the
// caller to delete.
grpc::Status SubmitInferRequest(INFERD_Server* server,
                                const inference::ModelInferRequest& message,
                                std::vector<std::unique_ptr<char[]>>* converted,
                                INFERD_InferenceRequest** request,
                                const RequestCallbacks& callbacks);

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_INFER_REQUEST_BUILDER_H_

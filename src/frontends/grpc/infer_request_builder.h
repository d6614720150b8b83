// Turns a gRPC ModelInferRequest into a server request (INFERD_InferenceRequest):
// inputs from raw_input_contents are appended as borrowed memory, typed
// contents borrowed or converted (see tensor_contents.h), requested outputs and
// the protocol's parameters (sequence_id, sequence_start/end, priority,
// timeout) set, other parameters passed through to the model (but for
// Triton's reserved "triton_" ones, read by the frontend itself). Tensors in
// system shared memory are located in the registry: inputs are read from
// their region, outputs noted in the OutputDestination. The message and the
// RequestMemory must outlive the server request, until its release callback.
// Thread-safe (no shared state).
#ifndef INFERD_FRONTENDS_GRPC_INFER_REQUEST_BUILDER_H_
#define INFERD_FRONTENDS_GRPC_INFER_REQUEST_BUILDER_H_

#include <grpcpp/support/string_ref.h>

#include <map>
#include <memory>
#include <vector>

#include "common/header_forward.h"
#include "common/shared_memory_registry.h"
#include "grpc/output_destination.h"
#include "grpc_service.pb.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::grpc_frontend {

// Memory a request's inputs live in besides the message.
struct RequestMemory {
  std::vector<std::unique_ptr<char[]>> converted;  // typed contents converted for the server
  std::vector<SharedMemorySlice> input_slices;     // keeps input regions mapped
};

// What building a request reads and fills besides the message.
struct BuildContext {
  INFERD_Server* server = nullptr;
  const SharedMemoryRegistry* shared_memory = nullptr;  // null: the extension is off
  RequestMemory* memory = nullptr;
  OutputDestination* outputs = nullptr;  // shared memory outputs are added to it
  // The call's metadata forwarded as string parameters; null: none.
  const ForwardedHeaders* forwarded = nullptr;
  // The call's metadata, whose traceparent and tracestate become the
  // request's trace context; null: none.
  const std::multimap<grpc::string_ref, grpc::string_ref>* metadata = nullptr;
  // The priority of a request whose parameters name none (its API key's,
  // --auth-file); 0: the model's default.
  uint32_t default_priority = 0;
};

// The entries of a call's `metadata` that `forwarder` selects (none when it
// is null); INVALID_ARG when a selected key is a reserved parameter name.
Status CollectForwardedMetadata(
    const HeaderForwarder* forwarder,
    const std::multimap<grpc::string_ref, grpc::string_ref>& metadata, ForwardedHeaders* out);

// Sets the W3C trace context of the call's `metadata` (traceparent,
// tracestate) on `request`; nothing without a traceparent.
Status SetTraceContext(const std::multimap<grpc::string_ref, grpc::string_ref>& metadata,
                       INFERD_InferenceRequest* request);

// Creates *request from `message`. On success the caller owns *request; on
// error nothing is left to free and the status names the model, input,
// output or parameter at fault: INVALID_ARG or the server's error.
Status BuildInferRequest(const BuildContext& build,
                         const inference::ModelInferRequest& message,
                         INFERD_InferenceRequest** request);

// Where a submitted request's release and responses go.
struct RequestCallbacks {
  INFERD_ResponseAllocator* allocator = nullptr;  // given build.outputs as its userp
  INFERD_InferenceRequestReleaseFn release_fn = nullptr;
  INFERD_InferenceResponseCompleteFn response_fn = nullptr;
  void* userp = nullptr;  // for release_fn and response_fn
  // The caller carries one response (unary ModelInfer): the server then
  // refuses a decoupled model at submission, naming the streaming RPC.
  bool single_response = false;
  // The caller takes its response on any thread, inside the submission too:
  // the server may execute a short model right there (server.h
  // INFERD_InferenceRequestSetExecuteOnCaller).
  bool execute_on_caller = false;
};

// BuildInferRequest, then the callbacks, then INFERD_ServerInferAsync. On
// error nothing was queued; a request already built stays in *request for the
// caller to delete.
Status SubmitInferRequest(const BuildContext& build,
                          const inference::ModelInferRequest& message,
                          INFERD_InferenceRequest** request,
                          const RequestCallbacks& callbacks);

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_INFER_REQUEST_BUILDER_H_

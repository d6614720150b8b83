// Inference through a server: response allocators, inference requests and
// their submission (INFERD_ServerInferAsync), inference responses. Part of
// server.h, whose conventions apply (abi_common.h); a backend that sends
// requests of its own reaches it through backend_bls.h.
#ifndef INFERD_INFERENCE_H_
#define INFERD_INFERENCE_H_

#include "inferd/abi_common.h"

#ifdef __cplusplus
extern "C" {
#endif

// The server requests are submitted to; server_control.h creates it.
struct INFERD_Server;
struct INFERD_InferenceRequest;
struct INFERD_InferenceResponse;
struct INFERD_ResponseAllocator;

typedef struct INFERD_Server INFERD_Server;
typedef struct INFERD_InferenceRequest INFERD_InferenceRequest;
typedef struct INFERD_InferenceResponse INFERD_InferenceResponse;
typedef struct INFERD_ResponseAllocator INFERD_ResponseAllocator;

// ---------------------------------------------------------------------------
// Response allocator: how the server obtains memory for output tensors, so a
// frontend can have outputs written straight into its own buffers.

// Called once per output tensor. Set *buffer to `byte_size` bytes of memory
// (NULL is allowed when byte_size is 0), *buffer_userp to anything the release
// function needs, and *actual_memory_type / *actual_memory_type_id to where the
// memory lives. `userp` is the allocator_userp given with the request.
typedef INFERD_Error* (*INFERD_ResponseAllocatorAllocFn)(
    INFERD_ResponseAllocator* allocator, const char* tensor_name, size_t byte_size,
    INFERD_MemoryType memory_type, int64_t memory_type_id, void* userp, void** buffer,
    void** buffer_userp, INFERD_MemoryType* actual_memory_type, int64_t* actual_memory_type_id);
// Called when the response holding `buffer` is deleted.
typedef INFERD_Error* (*INFERD_ResponseAllocatorReleaseFn)(
    INFERD_ResponseAllocator* allocator, void* buffer, void* buffer_userp, size_t byte_size,
    INFERD_MemoryType memory_type, int64_t memory_type_id);

// The allocator must outlive every request that uses it.
INFERD_EXPORT INFERD_Error* INFERD_ResponseAllocatorNew(INFERD_ResponseAllocator** allocator,
                                                        INFERD_ResponseAllocatorAllocFn alloc_fn,
                                                        INFERD_ResponseAllocatorReleaseFn release_fn);
INFERD_EXPORT INFERD_Error* INFERD_ResponseAllocatorDelete(INFERD_ResponseAllocator* allocator);

// ---------------------------------------------------------------------------
// Inference requests

// Called when the server no longer uses the request, its inputs included. The
// owner may then delete the request (or reuse it).
typedef void (*INFERD_InferenceRequestReleaseFn)(INFERD_InferenceRequest* request, uint32_t flags,
                                                 void* userp);
// Called for every response, in the order the model sent them, never two at
// once for one request. The callee owns `response` (may be NULL when only
// the FINAL flag is delivered) and frees it with INFERD_InferenceResponseDelete.
// It should return quickly (the model's sender waits) and may call
// INFERD_InferenceRequestCancel, but nothing else on the request.
typedef void (*INFERD_InferenceResponseCompleteFn)(INFERD_InferenceResponse* response,
                                                   uint32_t flags, void* userp);

// A request for `model_name`; `model_version` -1 means the latest READY version.
// The model is looked up when the request is submitted, not here.
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestNew(INFERD_InferenceRequest** request,
                                                       INFERD_Server* server,
                                                       const char* model_name,
                                                       int64_t model_version);
// Must not be called between a successful INFERD_ServerInferAsync and the
// release callback.
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestDelete(INFERD_InferenceRequest* request);
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestSetId(INFERD_InferenceRequest* request,
                                                         const char* id);
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestSetFlags(INFERD_InferenceRequest* request,
                                                            uint32_t flags);
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestSetCorrelationId(
    INFERD_InferenceRequest* request, uint64_t correlation_id);
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestSetCorrelationIdString(
    INFERD_InferenceRequest* request, const char* correlation_id);
// Priority level; 0 means the model's default level.
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestSetPriority(INFERD_InferenceRequest* request,
                                                               uint32_t priority);
// Queue timeout; 0 means the model's default.
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestSetTimeoutMicroseconds(
    INFERD_InferenceRequest* request, uint64_t timeout_us);
// Custom parameters, passed through to the backend.
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestSetStringParameter(
    INFERD_InferenceRequest* request, const char* name, const char* value);
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestSetIntParameter(
    INFERD_InferenceRequest* request, const char* name, int64_t value);
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestSetBoolParameter(
    INFERD_InferenceRequest* request, const char* name, bool value);
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestSetDoubleParameter(
    INFERD_InferenceRequest* request, const char* name, double value);

// Declares an input tensor. `shape` includes the batch dimension when the model
// batches. ALREADY_EXISTS if the name was added before.
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestAddInput(INFERD_InferenceRequest* request,
                                                            const char* name,
                                                            INFERD_DataType datatype,
                                                            const int64_t* shape,
                                                            uint64_t dim_count);
// Appends a buffer to an input's data; an input may have several. The memory is
// borrowed, not copied: it must stay valid until the release callback runs.
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestAppendInputData(
    INFERD_InferenceRequest* request, const char* name, const void* base, size_t byte_size,
    INFERD_MemoryType memory_type, int64_t memory_type_id);
// Asks for one output by name. With no output requested, every output the model
// configuration lists is returned.
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestAddRequestedOutput(
    INFERD_InferenceRequest* request, const char* name);

// The classification extension: the response carries, instead of output
// `name`'s tensor, its `class_count` largest values in each batch row as BYTES
// elements "<value>:<index>[:<label>]", largest first (labels from the
// output's label_filename), shape [rows, k] or [k] for a model that does not
// batch. Requests the output if it was not requested yet. Outputs of type
// BYTES or BOOL cannot be classified (INVALID_ARG at submission).
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestSetOutputClassification(
    INFERD_InferenceRequest* request, const char* name, uint32_t class_count);

INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestSetReleaseCallback(
    INFERD_InferenceRequest* request, INFERD_InferenceRequestReleaseFn release_fn, void* userp);
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestSetResponseCallback(
    INFERD_InferenceRequest* request, INFERD_ResponseAllocator* allocator, void* allocator_userp,
    INFERD_InferenceResponseCompleteFn response_fn, void* response_userp);
// For a caller that can carry only one response per request (HTTP /infer,
// gRPC ModelInfer): submitting the request to a decoupled model
// (model_transaction_policy { decoupled: true }) then fails with UNSUPPORTED
// naming the policy and the streaming endpoints to use instead.
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestSetSingleResponse(
    INFERD_InferenceRequest* request, bool single_response);
// The caller's W3C trace context: the `traceparent` and `tracestate` HTTP
// headers (or gRPC metadata) it sent; `tracestate` may be NULL. When the
// request is traced in opentelemetry mode its spans join the caller's trace,
// and a request the caller sampled is traced whatever the trace rate. A
// malformed traceparent is ignored, as the W3C specification asks (OK).
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestSetTraceContext(
    INFERD_InferenceRequest* request, const char* traceparent, const char* tracestate);
// Lets the server execute the request on the thread that calls
// INFERD_ServerInferAsync, inside that call, when the model has an idle
// instance whose backend allows it, no request waits, and the model's recent
// executions were short (about 0.1 ms at most): the hand-over to an instance
// thread and back would cost more than such an execution. The response and
// release callbacks then run inside INFERD_ServerInferAsync. Default false.
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestSetExecuteOnCaller(
    INFERD_InferenceRequest* request, bool allowed);
// Asks the server to drop the request if it has not started executing (the
// response then carries a CANCELLED error), and tells a backend that is
// executing it (backend.h INFERD_RequestIsCancelled) so that a long or
// streaming execution can stop early. Safe at any time after submission.
INFERD_EXPORT INFERD_Error* INFERD_InferenceRequestCancel(INFERD_InferenceRequest* request);

// Validates the request against its model and queues it. On success the server
// owns the request until the release callback; every response, errors included,
// arrives through the response callback. On error nothing was queued, no
// callback will run, and the caller still owns the request. A model whose
// response is in the response cache answers before this call returns: the
// response and release callbacks may run on the calling thread, inside it.
INFERD_EXPORT INFERD_Error* INFERD_ServerInferAsync(INFERD_Server* server,
                                                   INFERD_InferenceRequest* request);

// ---------------------------------------------------------------------------
// Inference responses

INFERD_EXPORT INFERD_Error* INFERD_InferenceResponseDelete(INFERD_InferenceResponse* response);
// The error the request ended with, or NULL. Owned by the response.
INFERD_EXPORT INFERD_Error* INFERD_InferenceResponseError(INFERD_InferenceResponse* response);
INFERD_EXPORT INFERD_Error* INFERD_InferenceResponseId(INFERD_InferenceResponse* response,
                                                       const char** id);
INFERD_EXPORT INFERD_Error* INFERD_InferenceResponseModel(INFERD_InferenceResponse* response,
                                                          const char** model_name,
                                                          int64_t* model_version);
// The W3C traceparent of the request's span when the request was traced in
// opentelemetry mode ("00-<trace id>-<span id>-01"), else "": what a
// frontend returns to the caller (the `traceresponse` header). Lives as long
// as the response.
INFERD_EXPORT INFERD_Error* INFERD_InferenceResponseTraceParent(
    INFERD_InferenceResponse* response, const char** traceparent);
INFERD_EXPORT INFERD_Error* INFERD_InferenceResponseOutputCount(
    INFERD_InferenceResponse* response, uint32_t* count);
// Output `index`: its name, datatype, shape and data. All pointers live as long
// as the response; *buffer_userp is what the allocator returned for it.
INFERD_EXPORT INFERD_Error* INFERD_InferenceResponseOutput(
    INFERD_InferenceResponse* response, uint32_t index, const char** name,
    INFERD_DataType* datatype, const int64_t** shape, uint64_t* dim_count, const void** base,
    size_t* byte_size, INFERD_MemoryType* memory_type, int64_t* memory_type_id,
    void** buffer_userp);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // INFERD_INFERENCE_H_

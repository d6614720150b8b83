// inferd backend ABI: what a backend shared library implements and what the
// server offers it. A backend is `libinferd_<name>.so`, found in this order:
//   <repository>/<model>/<version>/libinferd_<name>.so
//   <repository>/<model>/libinferd_<name>.so
//   <backend-directory>/<name>/libinferd_<name>.so
//
// The backend exports (all optional except INFERD_ModelInstanceExecute):
//   INFERD_Error* INFERD_BackendInitialize(INFERD_Backend*);
//   INFERD_Error* INFERD_BackendFinalize(INFERD_Backend*);
//   INFERD_Error* INFERD_ModelInitialize(INFERD_Model*);
//   INFERD_Error* INFERD_ModelFinalize(INFERD_Model*);
//   INFERD_Error* INFERD_ModelInstanceInitialize(INFERD_ModelInstance*);
//   INFERD_Error* INFERD_ModelInstanceFinalize(INFERD_ModelInstance*);
//   INFERD_Error* INFERD_ModelInstanceExecute(INFERD_ModelInstance*,
//                                             INFERD_Request** requests,
//                                             uint32_t request_count);
// Backend initialize runs once per library, model initialize once per loaded
// model version, instance initialize once per instance of it; finalize runs in
// reverse order. An error from an initialize fails the model's load with that
// error's message.
//
// Execute: the server never calls it concurrently for one instance, but does for
// different instances, of one model or of several. On success the backend owns
// every request passed in: for each it must send its responses (the last one
// with INFERD_RESPONSE_COMPLETE_FINAL) and call INFERD_RequestRelease, before or
// after returning. On error the backend must not have released or answered any
// request: the server answers each with the error and releases it.
//
// Decoupled models (model_transaction_policy { decoupled: true }) send any
// number of responses per request, zero included, from any thread and after
// execute returned: take an INFERD_ResponseSender for the request, release the
// request whenever convenient (the server keeps it, inputs included, until
// FINAL), and end with FINAL, with or without a last response. The sender
// works for any model; only decoupled models may send more than one response
// to a client that asked for one (HTTP /infer, gRPC ModelInfer refuse them).
//
// The conventions of abi_common.h apply (errors, ownership, no exceptions),
// which is all of the server API a backend sees; a backend that sends
// inference requests of its own (business logic scripting) includes
// backend_bls.h as well.
#ifndef INFERD_BACKEND_H_
#define INFERD_BACKEND_H_

#include "inferd/abi_common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define INFERD_BACKEND_API_VERSION_MAJOR 0
#define INFERD_BACKEND_API_VERSION_MINOR 8

struct INFERD_Backend;
struct INFERD_Model;
struct INFERD_ModelInstance;
struct INFERD_Request;
struct INFERD_Input;
struct INFERD_Response;
struct INFERD_Output;
struct INFERD_ResponseSender;

typedef struct INFERD_Backend INFERD_Backend;
typedef struct INFERD_Model INFERD_Model;
typedef struct INFERD_ModelInstance INFERD_ModelInstance;
typedef struct INFERD_Request INFERD_Request;
typedef struct INFERD_Input INFERD_Input;
typedef struct INFERD_Response INFERD_Response;
typedef struct INFERD_Output INFERD_Output;
typedef struct INFERD_ResponseSender INFERD_ResponseSender;

// Reports the backend API version the server implements. A backend should
// refuse to initialize when MAJOR differs from the one it was built with.
INFERD_EXPORT INFERD_Error* INFERD_BackendApiVersion(uint32_t* major, uint32_t* minor);

// ---------------------------------------------------------------------------
// Backend

INFERD_EXPORT INFERD_Error* INFERD_BackendName(INFERD_Backend* backend, const char** name);
// The backend's --backend-config settings as a JSON object of strings; the
// caller owns *config.
INFERD_EXPORT INFERD_Error* INFERD_BackendConfig(INFERD_Backend* backend,
                                                 INFERD_Message** config);
// Opaque state the backend keeps for itself; the server never reads it.
INFERD_EXPORT INFERD_Error* INFERD_BackendSetState(INFERD_Backend* backend, void* state);
INFERD_EXPORT INFERD_Error* INFERD_BackendState(INFERD_Backend* backend, void** state);

// ---------------------------------------------------------------------------
// Model (one loaded version)

INFERD_EXPORT INFERD_Error* INFERD_ModelName(INFERD_Model* model, const char** name);
INFERD_EXPORT INFERD_Error* INFERD_ModelVersion(INFERD_Model* model, uint64_t* version);
// The model's folder, `<repository>/<model>`; the version folder is inside it.
INFERD_EXPORT INFERD_Error* INFERD_ModelRepositoryPath(INFERD_Model* model, const char** path);
// The complete model configuration as JSON (as the config endpoint shows it);
// the caller owns *config.
INFERD_EXPORT INFERD_Error* INFERD_ModelConfig(INFERD_Model* model, INFERD_Message** config);
// Whether the backend may complete the configuration from the model file
// (auto-completion: on unless --disable-auto-complete-config is given). Then, and only inside
// INFERD_ModelInitialize, it may call INFERD_ModelSetConfig.
INFERD_EXPORT INFERD_Error* INFERD_ModelAutoCompleteConfig(INFERD_Model* model,
                                                           bool* auto_complete);
// Replaces the model's configuration with `config_json` (the JSON form the
// config endpoint shows, e.g. INFERD_ModelConfig's output with fields added).
// The server fills defaults and validates it; an invalid config is an error
// naming the field and leaves the old one in place.
INFERD_EXPORT INFERD_Error* INFERD_ModelSetConfig(INFERD_Model* model, const char* config_json);
INFERD_EXPORT INFERD_Error* INFERD_ModelBackend(INFERD_Model* model, INFERD_Backend** backend);
INFERD_EXPORT INFERD_Error* INFERD_ModelSetState(INFERD_Model* model, void* state);
INFERD_EXPORT INFERD_Error* INFERD_ModelState(INFERD_Model* model, void** state);

// ---------------------------------------------------------------------------
// Model instance

// Instance kinds, matching the configuration's instance_group kind.
typedef enum INFERD_InstanceKind_enum {
  INFERD_INSTANCE_KIND_AUTO = 0,
  INFERD_INSTANCE_KIND_GPU = 1,
  INFERD_INSTANCE_KIND_CPU = 2,
  INFERD_INSTANCE_KIND_MODEL = 3
} INFERD_InstanceKind;

// "<group name>_<index>", unique within the model.
INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceName(INFERD_ModelInstance* instance,
                                                     const char** name);
INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceKind(INFERD_ModelInstance* instance,
                                                     INFERD_InstanceKind* kind);
INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceDeviceId(INFERD_ModelInstance* instance,
                                                         int32_t* device_id);
INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceModel(INFERD_ModelInstance* instance,
                                                      INFERD_Model** model);
INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceSetState(INFERD_ModelInstance* instance,
                                                         void* state);
INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceState(INFERD_ModelInstance* instance,
                                                      void** state);
// Allows the server to run this instance's execute on a thread other than
// the instance's own: the thread that submitted a request, when the instance
// is idle and the model's executions are short (server.h
// INFERD_InferenceRequestSetExecuteOnCaller). Executions of one instance never
// overlap either way. Only for a backend whose execute keeps no per-thread
// state (thread-local settings, an OpenMP team per calling thread). Call from
// instance initialize; default false.
INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceSetExecuteOnAnyThread(
    INFERD_ModelInstance* instance, bool allowed);

// Reports, from the thread running execute and before it returns, when the
// computation proper of this execution began and ended, in nanoseconds of the
// steady clock (CLOCK_MONOTONIC, std::chrono::steady_clock). Statistics then
// count the time before as compute_input and after as compute_output (and
// traces place COMPUTE_INPUT_END there); without a report the whole execution
// is compute_infer. Several reports in one execution (sub-batches) widen the
// span. A span outside the execution is ignored.
INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceReportComputeTimes(
    INFERD_ModelInstance* instance, uint64_t compute_start_ns, uint64_t compute_end_ns);

// One memory copy, for INFERD_ModelInstanceCopyBuffers.
typedef struct INFERD_MemoryCopy {
  void* dst;
  const void* src;
  uint64_t byte_size;
} INFERD_MemoryCopy;
// Makes `count` copies (CPU memory; regions must not overlap) and returns when
// all are done: split across the server's buffer-manager threads
// (--buffer-manager-thread-count) when there are any and the copies are large
// enough to gain, else on the calling thread. For gathering a batch's inputs
// and scattering its outputs inside execute.
INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceCopyBuffers(INFERD_ModelInstance* instance,
                                                           const INFERD_MemoryCopy* copies,
                                                           uint32_t count);

// ---------------------------------------------------------------------------
// Requests (owned by the backend inside execute, until released)

INFERD_EXPORT INFERD_Error* INFERD_RequestId(INFERD_Request* request, const char** id);
// The request's sequence id (correlation id): a number (0: none or a string
// id), or a string ("" for a number or none). Lives as long as the request.
INFERD_EXPORT INFERD_Error* INFERD_RequestCorrelationId(INFERD_Request* request, uint64_t* id);
INFERD_EXPORT INFERD_Error* INFERD_RequestCorrelationIdString(INFERD_Request* request,
                                                              const char** id);
INFERD_EXPORT INFERD_Error* INFERD_RequestFlags(INFERD_Request* request, uint32_t* flags);
// The request's span as a W3C traceparent when it is traced in opentelemetry
// mode, else "": a backend that sends requests of its own (BLS) passes it on
// (inference.h INFERD_InferenceRequestSetTraceContext) so that their spans
// are children of this request's. Lives as long as the request.
INFERD_EXPORT INFERD_Error* INFERD_RequestTraceParent(INFERD_Request* request,
                                                      const char** traceparent);
// The timeout the client gave the request, in microseconds (0: none), as it
// sent it (KServe parameter "timeout"; gRPC's deadline does not set it), so
// a backend can give up on long work of its own. Since 0.8.
INFERD_EXPORT INFERD_Error* INFERD_RequestTimeoutMicroseconds(INFERD_Request* request,
                                                              uint64_t* timeout_us);
INFERD_EXPORT INFERD_Error* INFERD_RequestInputCount(INFERD_Request* request, uint32_t* count);
// Inputs by position or by name; NOT_FOUND for an unknown name. The input lives
// as long as the request.
INFERD_EXPORT INFERD_Error* INFERD_RequestInputByIndex(INFERD_Request* request, uint32_t index,
                                                       INFERD_Input** input);
INFERD_EXPORT INFERD_Error* INFERD_RequestInput(INFERD_Request* request, const char* name,
                                                INFERD_Input** input);
// The outputs the client asked for (every configured output when it named none).
INFERD_EXPORT INFERD_Error* INFERD_RequestOutputCount(INFERD_Request* request, uint32_t* count);
INFERD_EXPORT INFERD_Error* INFERD_RequestOutputName(INFERD_Request* request, uint32_t index,
                                                     const char** name);
// The request's custom parameters (those the protocol does not define), in the
// order the client sent them. `*value` points at the value as
// INFERD_ParameterType says (abi_common.h) and lives as long as the request.
INFERD_EXPORT INFERD_Error* INFERD_RequestParameterCount(INFERD_Request* request,
                                                         uint32_t* count);
INFERD_EXPORT INFERD_Error* INFERD_RequestParameter(INFERD_Request* request, uint32_t index,
                                                    const char** name,
                                                    INFERD_ParameterType* type,
                                                    const void** value);
// Whether the request should stop: its client cancelled it (went away, or
// asked), or its timeout (INFERD_InferenceRequestSetTimeoutMicroseconds)
// passed. A long or streaming execution polls this to stop early; it should
// then end the request with a CANCELLED error.
INFERD_EXPORT INFERD_Error* INFERD_RequestIsCancelled(INFERD_Request* request, bool* cancelled);
// Hands the request back to the server; the backend must not touch it after.
// `flags` is INFERD_REQUEST_RELEASE_ALL: the backend is done with it. While a
// response sender of the request is open and FINAL was not sent, the server
// keeps the request, its inputs included, until FINAL.
// INFERD_REQUEST_RELEASE_RESCHEDULE (since 0.7; Triton's
// TRITONSERVER_REQUEST_RELEASE_RESCHEDULE): the scheduler queues the same
// request again and a later execute gets it again (an iterative sequence: one
// step per execution, e.g. one token per execution sent on the request's
// response sender, until a release with ALL ends it). Only a model with
// `sequence_batching { iterative_sequence: true }` may; for any other model
// (and after the model stopped) the call fails with INVALID_ARG (UNAVAILABLE)
// and the backend still owns the request: it answers it (the error, FINAL)
// and releases it with ALL.
INFERD_EXPORT INFERD_Error* INFERD_RequestRelease(INFERD_Request* request, uint32_t flags);

// Input properties. `shape` includes the batch dimension when the model batches;
// `byte_size` is the sum over the input's buffers.
INFERD_EXPORT INFERD_Error* INFERD_InputProperties(INFERD_Input* input, const char** name,
                                                   INFERD_DataType* datatype,
                                                   const int64_t** shape, uint32_t* dim_count,
                                                   uint64_t* byte_size, uint32_t* buffer_count);
// One of the input's buffers; the memory stays valid until the request is released.
INFERD_EXPORT INFERD_Error* INFERD_InputBuffer(INFERD_Input* input, uint32_t index,
                                               const void** buffer, uint64_t* byte_size,
                                               INFERD_MemoryType* memory_type,
                                               int64_t* memory_type_id);

// ---------------------------------------------------------------------------
// Responses

// A new response to `request`; the backend owns it until it sends or deletes it.
INFERD_EXPORT INFERD_Error* INFERD_ResponseNew(INFERD_Response** response,
                                               INFERD_Request* request);
INFERD_EXPORT INFERD_Error* INFERD_ResponseDelete(INFERD_Response* response);
// Adds an output tensor. An output the client did not ask for is accepted and
// dropped (its buffer is scratch memory). The output lives as long as the response.
INFERD_EXPORT INFERD_Error* INFERD_ResponseOutput(INFERD_Response* response,
                                                  INFERD_Output** output, const char* name,
                                                  INFERD_DataType datatype,
                                                  const int64_t* shape, uint32_t dim_count);
// Memory for an output's data, `byte_size` bytes, obtained from the client's
// allocator. *memory_type and *memory_type_id say where the backend prefers it
// and, on return, where it is.
INFERD_EXPORT INFERD_Error* INFERD_OutputBuffer(INFERD_Output* output, void** buffer,
                                                uint64_t byte_size,
                                                INFERD_MemoryType* memory_type,
                                                int64_t* memory_type_id);
// Sends the response and frees it. Takes ownership of `error` (may be NULL); a
// response with an error carries no outputs. Without a response sender, send a
// request's responses before releasing the request. `flags` may hold
// INFERD_RESPONSE_COMPLETE_FINAL. A response sent after its request's FINAL
// is not delivered: the call fails (INTERNAL, naming the model and request),
// frees the response, and the server logs it.
INFERD_EXPORT INFERD_Error* INFERD_ResponseSend(INFERD_Response* response, uint32_t flags,
                                                INFERD_Error* error);

// ---------------------------------------------------------------------------
// Response senders: a request's responses, sent from any thread at any time
// until FINAL (decoupled models). A sender is thread-safe and outlives its
// request: the backend owns it until INFERD_ResponseSenderDelete, and a call
// on it after FINAL (or after the model unloaded) is an error, never a crash.
// Sends for one request are delivered in the order the calls are made;
// concurrent sends for one request are serialized.
//
// FINAL is owed once per request. If the backend released the request and
// deletes its last sender without FINAL, the server ends the request with an
// INTERNAL error. A request still open when its model has finalized (after
// INFERD_ModelFinalize returned) is ended the same way; the model's unload
// waits up to the server's exit timeout for open requests first.

INFERD_EXPORT INFERD_Error* INFERD_ResponseSenderNew(INFERD_ResponseSender** sender,
                                                     INFERD_Request* request);
INFERD_EXPORT INFERD_Error* INFERD_ResponseSenderDelete(INFERD_ResponseSender* sender);
// A new response to the sender's request, usable after the request was released.
INFERD_EXPORT INFERD_Error* INFERD_ResponseNewFromSender(INFERD_Response** response,
                                                         INFERD_ResponseSender* sender);
// Sends only `flags` (which must hold INFERD_RESPONSE_COMPLETE_FINAL): ends
// the request without a last response.
INFERD_EXPORT INFERD_Error* INFERD_ResponseSenderSendFlags(INFERD_ResponseSender* sender,
                                                           uint32_t flags);
// INFERD_RequestIsCancelled for the sender's request; true once it ended.
INFERD_EXPORT INFERD_Error* INFERD_ResponseSenderIsCancelled(INFERD_ResponseSender* sender,
                                                             bool* cancelled);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // INFERD_BACKEND_H_

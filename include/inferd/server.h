// inferd in-process server API: a stable C ABI.
//
// Everything a frontend (HTTP, gRPC) or an embedding application needs: create
// and stop a server, ask for health and metadata, read model configuration and
// the repository index, and run inference asynchronously.
//
// Conventions, once for the whole header:
// - A function returning INFERD_Error* returns NULL on success. A non-NULL error
//   is owned by the caller, who frees it with INFERD_ErrorDelete.
// - Objects created by an INFERD_*New function are owned by the caller and freed
//   with the matching INFERD_*Delete, unless a function says it takes ownership.
// - Strings returned through `const char**` live as long as the object they were
//   read from, unless stated otherwise.
// - Every function may be called from any thread. Callbacks run on server threads
//   and must not block for long.
// - No C++ exception crosses this boundary.
#ifndef INFERD_SERVER_H_
#define INFERD_SERVER_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define INFERD_EXPORT __attribute__((visibility("default")))
#else
#define INFERD_EXPORT
#endif

// A change of MAJOR breaks compatibility; MINOR only adds functions.
#define INFERD_API_VERSION_MAJOR 0
#define INFERD_API_VERSION_MINOR 12

struct INFERD_Error;
struct INFERD_Message;
struct INFERD_ServerOptions;
struct INFERD_Server;
struct INFERD_InferenceRequest;
struct INFERD_InferenceResponse;
struct INFERD_ResponseAllocator;

typedef struct INFERD_Error INFERD_Error;
typedef struct INFERD_Message INFERD_Message;
typedef struct INFERD_ServerOptions INFERD_ServerOptions;
typedef struct INFERD_Server INFERD_Server;
typedef struct INFERD_InferenceRequest INFERD_InferenceRequest;
typedef struct INFERD_InferenceResponse INFERD_InferenceResponse;
typedef struct INFERD_ResponseAllocator INFERD_ResponseAllocator;

// Reports the API version this library implements.
INFERD_EXPORT INFERD_Error* INFERD_ApiVersion(uint32_t* major, uint32_t* minor);

// ---------------------------------------------------------------------------
// Data types and memory

// Tensor element types: the KServe v2 datatypes.
typedef enum INFERD_DataType_enum {
  INFERD_TYPE_INVALID = 0,
  INFERD_TYPE_BOOL,
  INFERD_TYPE_UINT8,
  INFERD_TYPE_UINT16,
  INFERD_TYPE_UINT32,
  INFERD_TYPE_UINT64,
  INFERD_TYPE_INT8,
  INFERD_TYPE_INT16,
  INFERD_TYPE_INT32,
  INFERD_TYPE_INT64,
  INFERD_TYPE_FP16,
  INFERD_TYPE_FP32,
  INFERD_TYPE_FP64,
  INFERD_TYPE_BYTES,
  INFERD_TYPE_BF16
} INFERD_DataType;

// The protocol name of `datatype` ("FP32", "BYTES", ...); a static string.
INFERD_EXPORT const char* INFERD_DataTypeString(INFERD_DataType datatype);
// The datatype named `name`, or INFERD_TYPE_INVALID.
INFERD_EXPORT INFERD_DataType INFERD_StringToDataType(const char* name);
// Bytes per element; 0 for BYTES (variable) and INVALID.
INFERD_EXPORT uint32_t INFERD_DataTypeByteSize(INFERD_DataType datatype);

// Where a buffer lives. Only CPU memory is served today; the others exist so
// GPU backends and CUDA shared memory fit without an ABI change.
typedef enum INFERD_MemoryType_enum {
  INFERD_MEMORY_CPU = 0,
  INFERD_MEMORY_CPU_PINNED,
  INFERD_MEMORY_GPU
} INFERD_MemoryType;

// ---------------------------------------------------------------------------
// Errors

// Error codes. Each maps to one HTTP status and one gRPC status code.
typedef enum INFERD_Error_Code_enum {
  INFERD_ERROR_UNKNOWN = 0,    // HTTP 400, gRPC UNKNOWN
  INFERD_ERROR_INTERNAL,       // HTTP 500, gRPC INTERNAL
  INFERD_ERROR_NOT_FOUND,      // HTTP 404, gRPC NOT_FOUND
  INFERD_ERROR_INVALID_ARG,    // HTTP 400, gRPC INVALID_ARGUMENT
  INFERD_ERROR_UNAVAILABLE,    // HTTP 503, gRPC UNAVAILABLE
  INFERD_ERROR_UNSUPPORTED,    // HTTP 501, gRPC UNIMPLEMENTED
  INFERD_ERROR_ALREADY_EXISTS, // HTTP 400, gRPC ALREADY_EXISTS
  INFERD_ERROR_CANCELLED       // HTTP 400, gRPC CANCELLED
} INFERD_Error_Code;

// A new error; the caller owns it. `msg` is copied.
INFERD_EXPORT INFERD_Error* INFERD_ErrorNew(INFERD_Error_Code code, const char* msg);
INFERD_EXPORT void INFERD_ErrorDelete(INFERD_Error* error);
INFERD_EXPORT INFERD_Error_Code INFERD_ErrorCode(INFERD_Error* error);
// The code's name ("NOT_FOUND", ...); a static string.
INFERD_EXPORT const char* INFERD_ErrorCodeString(INFERD_Error* error);
// The message; lives as long as `error`.
INFERD_EXPORT const char* INFERD_ErrorMessage(INFERD_Error* error);

// ---------------------------------------------------------------------------
// Messages: JSON documents returned by the server (metadata, config, index).

// Points *base at the JSON text (not NUL-terminated) and sets *byte_size. The
// text lives as long as `message`.
INFERD_EXPORT INFERD_Error* INFERD_MessageSerializeToJson(INFERD_Message* message,
                                                          const char** base, size_t* byte_size);
INFERD_EXPORT INFERD_Error* INFERD_MessageDelete(INFERD_Message* message);

// ---------------------------------------------------------------------------
// Server options

INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsNew(INFERD_ServerOptions** options);
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsDelete(INFERD_ServerOptions* options);
// Adds a model repository folder; may be called several times.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsAddModelRepositoryPath(INFERD_ServerOptions* options,
                                                                      const char* path);
// The folder holding <backend>/libinferd_<backend>.so.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetBackendDirectory(INFERD_ServerOptions* options,
                                                                   const char* path);
// A backend setting (--backend-config <backend>,<setting>=<value>), handed to
// that backend through INFERD_BackendConfig.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetBackendConfig(INFERD_ServerOptions* options,
                                                                const char* backend_name,
                                                                const char* setting,
                                                                const char* value);
// --model-max-inflight-requests: a model with this many client requests in
// flight (queued or executing) refuses the next with UNAVAILABLE at once,
// naming the model and the cap. 0: no cap. Default 1024. A model whose
// dynamic batcher gives every priority level a max_queue_size is left to
// that queue policy. Since API 0.11.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetMaxInflightRequestsPerModel(
    INFERD_ServerOptions* options, uint64_t max_inflight);
// How long INFERD_ServerStop waits for in-flight requests.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetExitTimeout(INFERD_ServerOptions* options,
                                                               uint32_t seconds);
// When false (default, Triton's auto-complete), a model without config.pbtxt,
// or whose config lacks inputs, outputs or max_batch_size, may have its
// configuration completed by its backend; when true
// (--disable-auto-complete-config) the config must be whole.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetStrictModelConfig(INFERD_ServerOptions* options,
                                                                    bool strict);
// When true (default, --exit-on-error) INFERD_ServerNew fails, naming each
// model that failed to load at startup and why, after unloading what loaded;
// when false the server starts with what loaded, the failed models
// UNAVAILABLE in the repository index.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetExitOnError(INFERD_ServerOptions* options,
                                                              bool exit);
// The configuration file looked for in each model folder (--model-config-name):
// "<model folder>/configs/<name>.pbtxt", or config.pbtxt where that file does
// not exist. Empty or NULL (default): config.pbtxt. INVALID_ARG for a name
// with a '/' or that is "." or "..".
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetModelConfigName(INFERD_ServerOptions* options,
                                                                  const char* name);
// How many more times a model version whose load fails is loaded again before
// it is reported UNAVAILABLE (--model-load-retry-count). Default 0.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetModelLoadRetryCount(
    INFERD_ServerOptions* options, uint32_t count);
// Threads that split the large copies backends make of batch inputs and
// outputs (--buffer-manager-thread-count); 0 (default): each backend copies
// on its own execution thread.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetBufferManagerThreadCount(
    INFERD_ServerOptions* options, uint32_t count);
// Enables the server's response cache (--cache-config local,size=N,
// --response-cache-byte-size) with a budget of `byte_size` bytes; models use it
// with response_cache { enable: true } in their config. Default: no cache.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetResponseCacheByteSize(
    INFERD_ServerOptions* options, uint64_t byte_size);
// Model control modes (--model-control-mode).
typedef enum INFERD_ModelControlMode_enum {
  INFERD_MODEL_CONTROL_NONE = 0,
  INFERD_MODEL_CONTROL_EXPLICIT,
  INFERD_MODEL_CONTROL_POLL
} INFERD_ModelControlMode;
// How a new version replaces an old one on reload.
typedef enum INFERD_TransitionPolicy_enum {
  INFERD_TRANSITION_AVAILABILITY_PRESERVING = 0,  // load new, then retire old (default)
  INFERD_TRANSITION_RESOURCE_PRESERVING           // retire old, then load new
} INFERD_TransitionPolicy;

// Whether model instances that list instance_group rate_limiter resources
// wait for them before each execution (--rate-limit).
typedef enum INFERD_RateLimitMode_enum {
  INFERD_RATE_LIMIT_OFF = 0,        // never wait (default)
  INFERD_RATE_LIMIT_EXEC_COUNT = 1  // execution_count: take resources per execution
} INFERD_RateLimitMode;

// --host-policy=<policy_name>,<setting>=<value>: instances whose
// instance_group names `policy_name` in host_policy (by default "cpu" for
// KIND_CPU and "model" for KIND_MODEL instances) run as it says. Settings:
// "numa-node" (<id>: memory preferably from that node) and "cpu-cores" (<cpu>
// or <first>-<last>: the instance's execution thread runs on those CPUs).
// Since API 0.10. Errors: INVALID_ARG for an unknown setting, a malformed
// value, or a node or CPU this machine lacks.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetHostPolicy(INFERD_ServerOptions* options,
                                                             const char* policy_name,
                                                             const char* setting,
                                                             const char* value);

// --rate-limit. Since API 0.10.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetRateLimiterMode(INFERD_ServerOptions* options,
                                                                  INFERD_RateLimitMode mode);
// --rate-limit-resource: resource `name` has `count` copies on device
// `device`, or, with `device` -1, on every device and in the global pool (a
// device's own count beats the -1 one). Repeatable; a later call for the same
// name and device wins. Since API 0.10. Errors: INVALID_ARG for an empty name
// or a device below -1.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsAddRateLimiterResource(
    INFERD_ServerOptions* options, const char* name, uint32_t count, int32_t device);

INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetModelControlMode(INFERD_ServerOptions* options,
                                                                   INFERD_ModelControlMode mode);
// A model to load at start in EXPLICIT mode (--load-model); "*" loads all.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsAddStartupModel(INFERD_ServerOptions* options,
                                                               const char* model_name);
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetRepositoryPollSecs(INFERD_ServerOptions* options,
                                                                     uint32_t seconds);
// When true (--model-namespacing), each repository is a namespace: several
// repositories may hold models of the same name, all loaded. A request naming
// such a model is refused as ambiguous; an ensemble's steps run the model of
// its own repository. When false (default), a name found in two repositories
// makes that model UNAVAILABLE.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetModelNamespacing(INFERD_ServerOptions* options,
                                                                   bool enable);
// How many models load in parallel (--model-load-thread-count).
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetModelLoadThreadCount(
    INFERD_ServerOptions* options, uint32_t count);
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetTransitionPolicy(INFERD_ServerOptions* options,
                                                                   INFERD_TransitionPolicy policy);
// When true (default) the server is ready only when every model that should be
// loaded is READY; when false, ready whenever it is live.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetStrictReadiness(INFERD_ServerOptions* options,
                                                                  bool strict);
// Logging: verbose level (0 = off) and whether info, warning and error lines print.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetLogVerbose(INFERD_ServerOptions* options,
                                                              int level);
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetLogInfo(INFERD_ServerOptions* options, bool on);
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetLogWarn(INFERD_ServerOptions* options, bool on);
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetLogError(INFERD_ServerOptions* options, bool on);
// How log lines start (--log-format).
typedef enum INFERD_LogFormat_enum {
  INFERD_LOG_FORMAT_DEFAULT = 0,  // I1123 08:10:00.123456 <pid> <file>:<line>] <message>
  INFERD_LOG_FORMAT_ISO8601       // 2026-11-23T08:10:00Z I <pid> <file>:<line>] <message>
} INFERD_LogFormat;
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetLogFormat(INFERD_ServerOptions* options,
                                                             INFERD_LogFormat format);
// The file log lines are appended to (--log-file); empty or NULL: stderr. It is
// opened by INFERD_ServerNew, which fails with INVALID_ARG if it cannot be.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetLogFile(INFERD_ServerOptions* options,
                                                           const char* path);
// A global trace setting at startup, as --trace-config gives it: `setting` is
// file, level (OFF or TIMESTAMPS; TENSORS is refused), rate, count,
// log-frequency or mode (only "triton"). INVALID_ARG names a bad setting or
// value. INFERD_ServerNew fails when the level asks for tracing without a file.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetTraceSetting(INFERD_ServerOptions* options,
                                                               const char* setting,
                                                               const char* value);

// The server's identifier, reported as "name" by server metadata (--id).
// Default "triton", as Triton's.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetServerId(INFERD_ServerOptions* options,
                                                           const char* server_id);
// Whether metrics are kept for GET /metrics at all (--allow-metrics). With
// false the server samples no CPU metrics and keeps no latency summaries.
// Default true.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetMetrics(INFERD_ServerOptions* options, bool on);
// Whether the server samples CPU utilization and memory from /proc
// (--allow-cpu-metrics); only with metrics on. Default true.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetCpuMetrics(INFERD_ServerOptions* options,
                                                             bool on);
// How often, in milliseconds, the per-interval metrics (CPU) are sampled
// (--metrics-interval-ms); at least 1. Default 2000.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetMetricsInterval(INFERD_ServerOptions* options,
                                                                  uint64_t interval_ms);
// A --metrics-config setting: counter_latencies (true|false, default true),
// summary_latencies (true|false, default false), summary_quantiles
// ("<quantile>:<error>,...", each in (0,1)), histogram_latencies (true|false,
// default false: decoupled models' first-response histogram). INVALID_ARG names an unknown
// setting or a bad value.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetMetricsConfig(INFERD_ServerOptions* options,
                                                                const char* setting,
                                                                const char* value);

// Checks the repositories of `options` the way INFERD_ServerNew would load
// them, loading nothing: every config.pbtxt is parsed, completed with Triton's
// defaults and validated, the version policy is applied to the version folders,
// and the backend library each version would use is looked for (in the
// backend directory of `options`, after the model's own folders). Only the
// repositories, the backend directory, strict-model-config and the model config
// name are read from
// `options`. Errors only a backend finds (an unreadable model file, shapes the
// model rejects) are not seen.
// \param model_names The models to check (`model_count` of them); NULL with
//   a count of 0 checks every model of the repositories.
// \param report Set to a new message the caller frees with INFERD_MessageDelete:
//   {"models": [{"name", "in_repository", "ok", "errors": [line, ...],
//   "versions": [...], "backend", "libraries": [...], "completed_by_backend"}]}
//   with one entry per model, by name, then one per requested name that no
//   repository holds (in_repository false). Error lines name the model and
//   version, as the server's repository index would.
// \return NULL, or an error when a repository cannot be read at all.
INFERD_EXPORT INFERD_Error* INFERD_RepositoryCheck(const INFERD_ServerOptions* options,
                                                   const char* const* model_names,
                                                   uint32_t model_count,
                                                   INFERD_Message** report);

// ---------------------------------------------------------------------------
// Server

// Creates a server and loads the models of its repositories. A model that fails
// to load does not fail creation: it stays UNAVAILABLE with its reason (see the
// repository index). Creation fails only when the server as a whole cannot run,
// e.g. a repository folder that does not exist. On success the caller owns
// *server and frees it with INFERD_ServerDelete.
INFERD_EXPORT INFERD_Error* INFERD_ServerNew(INFERD_Server** server, INFERD_ServerOptions* options);
// Stops (if not stopped) and frees the server.
INFERD_EXPORT INFERD_Error* INFERD_ServerDelete(INFERD_Server* server);
// Stops accepting inference, waits up to the exit timeout for in-flight requests,
// then unloads every model. Returns an UNAVAILABLE error if requests were still
// in flight when the timeout ran out.
INFERD_EXPORT INFERD_Error* INFERD_ServerStop(INFERD_Server* server);

INFERD_EXPORT INFERD_Error* INFERD_ServerIsLive(INFERD_Server* server, bool* live);
// Ready: not stopping, and every model the repository asks for is READY.
INFERD_EXPORT INFERD_Error* INFERD_ServerIsReady(INFERD_Server* server, bool* ready);
// {"name", "version", "extensions": [...]}. The caller owns *metadata.
INFERD_EXPORT INFERD_Error* INFERD_ServerMetadata(INFERD_Server* server, INFERD_Message** metadata);

// Model queries. `model_version` -1 means the model's latest READY version.
// An unknown model or version gives NOT_FOUND.
INFERD_EXPORT INFERD_Error* INFERD_ServerModelIsReady(INFERD_Server* server, const char* model_name,
                                                      int64_t model_version, bool* ready);
// {"name", "versions", "platform", "inputs", "outputs"}; the caller owns *metadata.
INFERD_EXPORT INFERD_Error* INFERD_ServerModelMetadata(INFERD_Server* server,
                                                       const char* model_name,
                                                       int64_t model_version,
                                                       INFERD_Message** metadata);
// The model's complete configuration as JSON, as Triton renders it.
INFERD_EXPORT INFERD_Error* INFERD_ServerModelConfig(INFERD_Server* server, const char* model_name,
                                                     int64_t model_version,
                                                     INFERD_Message** config);

// Flags for INFERD_ServerModelIndex.
typedef enum INFERD_ModelIndexFlag_enum {
  INFERD_INDEX_FLAG_READY = 1  // only versions that are READY
} INFERD_ModelIndexFlag;
// [{"name", "version", "state", "reason"}, ...] for every model the repositories
// hold, including those that failed to load. The caller owns *index.
INFERD_EXPORT INFERD_Error* INFERD_ServerModelIndex(INFERD_Server* server, uint32_t flags,
                                                    INFERD_Message** index);

// Statistics extension: {"model_stats": [...]} for `model_name` (every loaded
// model when NULL or empty) at `model_version` (-1: every READY version). The
// caller owns *statistics.
INFERD_EXPORT INFERD_Error* INFERD_ServerModelStatistics(INFERD_Server* server,
                                                         const char* model_name,
                                                         int64_t model_version,
                                                         INFERD_Message** statistics);
// Prometheus text exposition (format 0.0.4) of every loaded model version:
// Triton's nv_inference_* names plus inferd_request_latency_seconds. The
// text is in the message's JSON slot, read with INFERD_MessageSerializeToJson.
INFERD_EXPORT INFERD_Error* INFERD_ServerMetrics(INFERD_Server* server, INFERD_Message** metrics);

// Logging extension. Log settings belong to the process, not to one server:
// every server in the process shares them, and the last INFERD_ServerNew sets
// them from its options.
//
// The settings in force: {"log_file": "", "log_info": true, "log_warning": true,
// "log_error": true, "log_verbose_level": 0, "log_format": "default"}
// (log_file "" means stderr; log_format "default" or "ISO8601"). The caller
// owns *settings.
INFERD_EXPORT INFERD_Error* INFERD_ServerLogSettings(INFERD_Server* server,
                                                     INFERD_Message** settings);
// Changes the settings named in `json` (`byte_size` bytes, a JSON object with
// any of the keys above; a null value or an empty document changes nothing)
// and sets *settings to all settings now in force (the caller owns it). The
// update is all or nothing: an unknown key or a value of the wrong type or
// range gives INVALID_ARG naming the key, and a log_file other than the one in
// force gives UNSUPPORTED (as in Triton, the log file is set only by
// INFERD_ServerOptionsSetLogFile, i.e. --log-file, so that a network client
// cannot choose a file the server appends to; the value in force is accepted);
// either way no setting changes. Concurrent updates are applied one after the other; a line
// being logged meanwhile is written whole under either the old or new settings.
INFERD_EXPORT INFERD_Error* INFERD_ServerUpdateLogSettings(INFERD_Server* server, const char* json,
                                                           size_t byte_size,
                                                           INFERD_Message** settings);
// Trace extension. The settings in force for `model_name` (the global ones
// when NULL or empty) as {"trace_level": [...], "trace_rate": "...",
// "trace_count": "...", "log_frequency": "...", "trace_file": "...",
// "trace_mode": "triton"}; trace_count is what is left of the count. A model
// must have a READY version (else NOT_FOUND or UNAVAILABLE). The caller owns
// *settings.
INFERD_EXPORT INFERD_Error* INFERD_ServerTraceSettings(INFERD_Server* server,
                                                       const char* model_name,
                                                       INFERD_Message** settings);
// Updates the settings of `model_name` (global when NULL or empty) with
// `settings_json`, an object of setting name -> string, array of strings, or
// null (clear: a model's setting falls back to the global one, a global one to
// its startup value). Settings not named stay as they are. Everything is
// checked before anything changes: an unknown setting or a bad value is
// INVALID_ARG naming it, trace_file is UNSUPPORTED (startup only). On success
// *settings (may be NULL if unwanted) receives the settings now in force.
INFERD_EXPORT INFERD_Error* INFERD_ServerUpdateTraceSettings(INFERD_Server* server,
                                                             const char* model_name,
                                                             const char* settings_json,
                                                             INFERD_Message** settings);

// Repository extension (EXPLICIT mode; UNAVAILABLE in the other modes).
// Loads or reloads `model_name`. `config_json` (may be NULL) replaces its
// config.pbtxt; `file_count` files (relative path, content, size) replace its
// folder's files, written to a private folder; a path that is absolute or
// climbs out with ".." is INVALID_ARG. Blocks until the load ends; the new
// version serves before the old one is retired (availability-preserving).
INFERD_EXPORT INFERD_Error* INFERD_ServerLoadModel(INFERD_Server* server, const char* model_name,
                                                   const char* config_json,
                                                   const char* const* file_paths,
                                                   const void* const* file_contents,
                                                   const size_t* file_sizes, uint32_t file_count);
// Unloads every version of `model_name` once its in-flight requests finish.
INFERD_EXPORT INFERD_Error* INFERD_ServerUnloadModel(INFERD_Server* server, const char* model_name,
                                                     bool unload_dependents);

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

// Request flags.
typedef enum INFERD_RequestFlag_enum {
  INFERD_REQUEST_FLAG_SEQUENCE_START = 1,
  INFERD_REQUEST_FLAG_SEQUENCE_END = 2
} INFERD_RequestFlag;

// Release flags passed to the release callback.
typedef enum INFERD_RequestReleaseFlag_enum {
  INFERD_REQUEST_RELEASE_ALL = 1  // the server holds no reference any more
} INFERD_RequestReleaseFlag;

// Response flags passed to the response callback.
typedef enum INFERD_ResponseCompleteFlag_enum {
  INFERD_RESPONSE_COMPLETE_FINAL = 1  // no more responses follow for this request
} INFERD_ResponseCompleteFlag;

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

// The type of a request parameter, as a backend reads it (backend.h).
typedef enum INFERD_ParameterType_enum {
  INFERD_PARAMETER_STRING = 0,  // value: const char*, NUL-terminated
  INFERD_PARAMETER_INT,         // value: int64_t
  INFERD_PARAMETER_BOOL,        // value: bool
  INFERD_PARAMETER_DOUBLE       // value: double
} INFERD_ParameterType;

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

#endif  // INFERD_SERVER_H_

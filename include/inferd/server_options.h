// Server options: what a server is created with (INFERD_ServerNew in
// server_control.h), and the repository check that reads them. Part of
// server.h, whose conventions apply (abi_common.h).
#ifndef INFERD_SERVER_OPTIONS_H_
#define INFERD_SERVER_OPTIONS_H_

#include "inferd/abi_common.h"

#ifdef __cplusplus
extern "C" {
#endif

struct INFERD_ServerOptions;
typedef struct INFERD_ServerOptions INFERD_ServerOptions;

// ---------------------------------------------------------------------------
// Server options

INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsNew(INFERD_ServerOptions** options);
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsDelete(INFERD_ServerOptions* options);
// Adds a model repository folder; may be called several times.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsAddModelRepositoryPath(INFERD_ServerOptions* options,
                                                                      const char* path);
// Where models of object store repositories (s3://, gs://, as:// paths above)
// are copied (--model-repository-cache-directory; NULL or "": the default,
// ~/.cache/inferd/model-repositories) and the most bytes the copies may take
// before the least recently used ones of models no longer current are
// removed (--model-repository-cache-byte-size; 0: no limit).
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetModelRepositoryCache(
    INFERD_ServerOptions* options, const char* directory, uint64_t byte_size);
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
// Admission control (docs/admission-control.md). `enabled` (--admission-control)
// sheds a request whose expected queue time exceeds its timeout and answers
// every refusal with RESOURCE_EXHAUSTED and retry advice; `queue_target_ms`
// (--admission-queue-target-ms, 0: none; > 0 enables) also sheds past that
// target; `max_inflight` and `max_queued` (--max-inflight-requests,
// --max-queued-requests, 0: no cap) cap the client requests of all models
// together. Models' config parameters may override. Since API 0.14.
INFERD_EXPORT INFERD_Error* INFERD_ServerOptionsSetAdmission(INFERD_ServerOptions* options,
                                                            bool enabled,
                                                            uint64_t queue_target_ms,
                                                            uint64_t max_inflight,
                                                            uint64_t max_queued);
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
// log-frequency or mode ("triton" or "opentelemetry"), optionally prefixed
// with its mode ("triton,file"; "opentelemetry,url", resource, bsp_*).
// INVALID_ARG names a bad setting or value. INFERD_ServerNew fails when the
// level asks for triton tracing without a file.
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

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // INFERD_SERVER_OPTIONS_H_

// A server: create and stop it, its health and metadata, model queries and
// statistics, and the logging, trace and repository extensions. Part of
// server.h, whose conventions apply (abi_common.h).
#ifndef INFERD_SERVER_CONTROL_H_
#define INFERD_SERVER_CONTROL_H_

#include "inferd/abi_common.h"
#include "inferd/inference.h"  // INFERD_Server
#include "inferd/server_models.h"
#include "inferd/server_options.h"

#ifdef __cplusplus
extern "C" {
#endif

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
// Announces that INFERD_ServerStop will follow (the grace period after SIGTERM):
// from now on the server and every model report not ready, while inference
// and everything else are served as before, so that load balancers take the
// server out of rotation before it refuses requests: INFERD_ServerIsReady and
// INFERD_ServerModelIsReady then give false and an UNAVAILABLE error. Live
// stays true.
// Idempotent; cannot be undone.
INFERD_EXPORT INFERD_Error* INFERD_ServerBeginExit(INFERD_Server* server);

INFERD_EXPORT INFERD_Error* INFERD_ServerIsLive(INFERD_Server* server, bool* live);
// Ready: every model the repository asks for is READY. Once the server exits
// (INFERD_ServerBeginExit, INFERD_ServerStop): false and an UNAVAILABLE error.
INFERD_EXPORT INFERD_Error* INFERD_ServerIsReady(INFERD_Server* server, bool* ready);
// {"name", "version", "extensions": [...]}. The caller owns *metadata.
INFERD_EXPORT INFERD_Error* INFERD_ServerMetadata(INFERD_Server* server, INFERD_Message** metadata);

// Model queries. `model_version` -1 means the model's latest READY version.
// An unknown model or version gives NOT_FOUND. (INFERD_ServerModelIsReady and
// the repository extension's load and unload are in server_models.h.)
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
// Triton's nv_inference_* names plus inferd_request_latency_seconds, then the
// custom metrics backends registered (backend_metrics.h). The
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

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // INFERD_SERVER_CONTROL_H_

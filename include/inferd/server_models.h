// A server's models as a caller may change them: readiness, and the
// repository extension's load and unload. Part of server.h (through
// server_control.h), whose conventions apply (abi_common.h); the Python
// backend includes it for pb_utils.load_model, unload_model and
// is_model_ready (scripts/layers.json).
#ifndef INFERD_SERVER_MODELS_H_
#define INFERD_SERVER_MODELS_H_

#include "inferd/abi_common.h"
#include "inferd/inference.h"  // INFERD_Server

#ifdef __cplusplus
extern "C" {
#endif

// `model_version` -1 means the model's latest READY version. An unknown model
// or version gives NOT_FOUND.
INFERD_EXPORT INFERD_Error* INFERD_ServerModelIsReady(INFERD_Server* server, const char* model_name,
                                                      int64_t model_version, bool* ready);

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

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // INFERD_SERVER_MODELS_H_

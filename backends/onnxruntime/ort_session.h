// Creating an ONNX Runtime session for a model file with given settings. One
// session serves one model instance. Thread-safe.
#ifndef INFERD_BACKENDS_ONNXRUNTIME_ORT_SESSION_H_
#define INFERD_BACKENDS_ONNXRUNTIME_ORT_SESSION_H_

#include <string>

#include "ort_api.h"
#include "session_settings.h"

namespace inferd::onnxruntime {

// The backend's ONNX Runtime environment, with the shared thread pools that
// sessions with SessionSettings::shared_pools run on: `cores` intra-op threads
// (the caller and cores - 1 pool threads), one inter-op thread, no spinning.
INFERD_Error* CreateSharedPoolsEnv(unsigned cores, OrtEnv** env);

// Loads the model at `path` into a new session. On error (unreadable or invalid
// model, bad option) returns an error whose message names the file and carries
// ONNX Runtime's reason.
INFERD_Error* CreateSession(OrtEnv* env, const std::string& path, const SessionSettings& settings,
                            OrtPtr<OrtSession>* session);

// Settings for a session that is only asked for the model's inputs and
// outputs: one thread, no graph optimization, so it loads fast.
SessionSettings MetadataSessionSettings();

}  // namespace inferd::onnxruntime

#endif  // INFERD_BACKENDS_ONNXRUNTIME_ORT_SESSION_H_

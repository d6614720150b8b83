// One loaded version of an ONNX model, as the backend keeps it between model
// initialize and finalize: the model file, the tensors it declares, the
// (possibly auto-completed) configuration it serves with, and the settings each
// instance's session is created with, and the session the load made: the
// instances' shared one, or the first instance's until it takes it.
// Thread-safe after Create.
#ifndef INFERD_BACKENDS_ONNXRUNTIME_MODEL_STATE_H_
#define INFERD_BACKENDS_ONNXRUNTIME_MODEL_STATE_H_

#include <memory>
#include <string>

#include "inferd/backend.h"
#include "inferd/base/mutex.h"
#include "model_io.h"
#include "model_settings.h"
#include "ort_api.h"
#include "session_settings.h"

namespace inferd::onnxruntime {

class ModelState {
 public:
  // Finds the model file (<model>/<version>/<default_model_filename>, or
  // model.onnx inside it when that is a folder), loads it once to learn its
  // tensors, completes the configuration through INFERD_ModelSetConfig when
  // the server allows it (adding `dynamic_batching {}` and
  // `default_max_batch_size` to a model that can batch, as Triton does), and
  // checks the configuration against the model. Call only inside
  // INFERD_ModelInitialize. Errors say what is wrong with the file or which
  // tensor disagrees; the server prefixes the model's name.
  static INFERD_Error* Create(INFERD_Model* model, OrtEnv* env, int64_t default_max_batch_size,
                              std::unique_ptr<ModelState>* state);

  ModelState(const ModelState&) = delete;
  ModelState& operator=(const ModelState&) = delete;

  const ModelSettings& settings() const { return settings_; }
  // "model 'm' version 1: ", the start of every request error.
  const std::string& error_prefix() const { return error_prefix_; }

  // The session for one instance, with the settings from the configuration:
  // the model's one session when its instances share it
  // (SessionSettings::share_session), else one of the instance's own (the
  // first instance gets the one Create loaded the model with).
  INFERD_Error* InstanceSession(std::shared_ptr<OrtSession>* session) EXCLUDES(mu_);

 private:
  ModelState() = default;

  // Loads the model to learn its tensors: with the instances' own settings when
  // those resolve and load (the session is then kept for the instances, so a
  // model is loaded once, not twice), else with MetadataSessionSettings(),
  // whose errors are the ones to report. Sets io_ and *used to the settings
  // the kept session has.
  INFERD_Error* ProbeModel(SessionSettings* used) EXCLUDES(mu_);

  // Constant after Create.
  OrtEnv* env_ = nullptr;  //!< the backend's, which outlives every model
  std::string path_;       //!< the model file ORT loads
  std::string error_prefix_;
  ModelIo io_;
  ModelSettings settings_;
  SessionSettings session_settings_;

  Mutex mu_;
  //! The session Create loaded (until an instance takes it, unless shared).
  std::shared_ptr<OrtSession> loaded_ GUARDED_BY(mu_);
};

}  // namespace inferd::onnxruntime

#endif  // INFERD_BACKENDS_ONNXRUNTIME_MODEL_STATE_H_

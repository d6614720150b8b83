// One loaded version of an ONNX model, as the backend keeps it between model
// initialize and finalize: the model file, the tensors it declares, the
// (possibly auto-completed) configuration it serves with, and the settings each
// instance's session is created with. Thread-safe after Create: instances only
// read it.
#ifndef INFERD_BACKENDS_ONNXRUNTIME_MODEL_STATE_H_
#define INFERD_BACKENDS_ONNXRUNTIME_MODEL_STATE_H_

#include <memory>
#include <string>

#include "inferd/backend.h"
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

  // A new session for one instance, with the settings from the configuration.
  INFERD_Error* CreateInstanceSession(OrtPtr<OrtSession>* session) const;

 private:
  ModelState() = default;

  // Constant after Create.
  OrtEnv* env_ = nullptr;  //!< the backend's, which outlives every model
  std::string path_;       //!< the model file ORT loads
  std::string error_prefix_;
  ModelIo io_;
  ModelSettings settings_;
  SessionSettings session_settings_;
};

}  // namespace inferd::onnxruntime

#endif  // INFERD_BACKENDS_ONNXRUNTIME_MODEL_STATE_H_

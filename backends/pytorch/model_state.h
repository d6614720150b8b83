// One loaded version of a TorchScript model, as the backend keeps it between
// model initialize and finalize: the model file, how its configured tensors
// bind to forward() (io_binding.h), and the run settings of its instances
// (run_settings.h). Thread-safe: instances read it; TakeModule locks.
#ifndef INFERD_BACKENDS_PYTORCH_MODEL_STATE_H_
#define INFERD_BACKENDS_PYTORCH_MODEL_STATE_H_

#include <memory>
#include <string>

#include "inferd/backend.h"
#include "inferd/base/mutex.h"
#include "io_binding.h"
#include "model_settings.h"
#include "run_settings.h"
#include "torch_module.h"

namespace inferd::pytorch {

class ModelState {
 public:
  // Finds the model file (<model>/<version>/<default_model_filename>, default
  // model.pt), loads it to read forward()'s signature, binds the configured
  // inputs and outputs to it and resolves the parameters. Call only inside
  // INFERD_ModelInitialize. Errors say what is wrong with the file, the
  // configuration or a parameter; the server prefixes the model's name.
  static INFERD_Error* Create(INFERD_Model* model, std::unique_ptr<ModelState>* state);

  ModelState(const ModelState&) = delete;
  ModelState& operator=(const ModelState&) = delete;

  const ModelSettings& settings() const { return settings_; }
  const RunSettings& run_settings() const { return run_settings_; }
  const IoBinding& binding() const { return binding_; }
  // "model 'm' version 1: ", the start of every request error.
  const std::string& error_prefix() const { return error_prefix_; }

  // A module of its own for one instance: the one Create loaded, for the
  // first caller, else the file loaded again.
  INFERD_Error* TakeModule(TorchModulePtr* module) EXCLUDES(mu_);

 private:
  ModelState() = default;

  // Constant after Create.
  std::string path_;  //!< the TorchScript file
  std::string error_prefix_;
  ModelSettings settings_;
  RunSettings run_settings_;
  IoBinding binding_;

  Mutex mu_;
  TorchModulePtr first_module_ GUARDED_BY(mu_);  //!< Create's, until an instance takes it
};

}  // namespace inferd::pytorch

#endif  // INFERD_BACKENDS_PYTORCH_MODEL_STATE_H_

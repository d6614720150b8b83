// Loading one model version for the PyTorch backend (see model_state.h).
#include "model_state.h"

#include <algorithm>
#include <thread>

#include "common/model_loading.h"

namespace inferd::pytorch {

using backend_common::MakeError;

INFERD_Error* ModelState::Create(INFERD_Model* model, std::unique_ptr<ModelState>* state) {
  std::unique_ptr<ModelState> self(new ModelState());
  if (auto* err = backend_common::RequestErrorPrefix(model, &self->error_prefix_)) return err;
  std::string json;
  if (auto* err =
          backend_common::ReadSettings(model, &ParseModelSettings, &self->settings_, &json)) {
    return err;
  }
  if (std::string problem = ResolveRunSettings(
          self->settings_, std::max(1u, std::thread::hardware_concurrency()),
          &self->run_settings_);
      !problem.empty()) {
    return MakeError(INFERD_ERROR_INVALID_ARG, problem);
  }
  const backend_common::ModelFileRule rule{"pytorch", "model.pt", false};
  if (auto* err = backend_common::FindModelFile(model, self->settings_.default_model_filename,
                                                rule, &self->path_)) {
    return err;
  }
  ForwardSignature signature;
  TorchModulePtr module;
  if (auto* err = LoadTorchModule(self->path_, &module, &signature)) return err;
  if (std::string problem = BindIo(self->settings_, signature, &self->binding_);
      !problem.empty()) {
    return MakeError(INFERD_ERROR_INVALID_ARG,
                     "the configuration does not fit " + self->path_ + ": " + problem);
  }
  SetInterOpThreadsOnce(self->run_settings_.inter_op_threads);
  {
    MutexLock lock(&self->mu_);
    self->first_module_ = std::move(module);
  }
  *state = std::move(self);
  return nullptr;
}

INFERD_Error* ModelState::TakeModule(TorchModulePtr* module) {
  {
    MutexLock lock(&mu_);
    if (first_module_) {
      *module = std::move(first_module_);
      return nullptr;
    }
  }
  return LoadTorchModule(path_, module, nullptr);
}

}  // namespace inferd::pytorch

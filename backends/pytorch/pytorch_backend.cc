// The PyTorch backend's entry points, in libinferd_pytorch_impl.so, which
// libinferd_pytorch.so (backend_loader.cc) loads and calls: TorchScript models
// through LibTorch on the CPU. A ModelState per loaded model version and an
// InstanceRunner (its own module) per instance. Every entry point catches what
// it might throw, so no exception crosses the ABI.
#include <memory>
#include <string>

#include "inferd/backend.h"
#include "instance_runner.h"
#include "model_state.h"
#include "request_batch.h"

namespace inferd::pytorch {
namespace {

template <typename Fn>
INFERD_Error* Guarded(Fn&& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return MakeError(INFERD_ERROR_INTERNAL, std::string("pytorch backend: ") + e.what());
  } catch (...) {
    return MakeError(INFERD_ERROR_INTERNAL, "pytorch backend: unknown exception");
  }
}

}  // namespace
}  // namespace inferd::pytorch

using inferd::pytorch::Guarded;
using inferd::pytorch::InstanceRunner;
using inferd::pytorch::MakeError;
using inferd::pytorch::ModelState;
using inferd::pytorch::TorchModulePtr;

extern "C" {

INFERD_EXPORT INFERD_Error* InferdPytorch_ModelInitialize(INFERD_Model* model) {
  return Guarded([&]() -> INFERD_Error* {
    std::unique_ptr<ModelState> state;
    if (auto* err = ModelState::Create(model, &state)) return err;
    if (auto* err = INFERD_ModelSetState(model, state.get())) return err;
    state.release();
    return nullptr;
  });
}

INFERD_EXPORT INFERD_Error* InferdPytorch_ModelFinalize(INFERD_Model* model) {
  return Guarded([&]() -> INFERD_Error* {
    void* state = nullptr;
    if (auto* err = INFERD_ModelState(model, &state)) return err;
    delete static_cast<ModelState*>(state);
    return INFERD_ModelSetState(model, nullptr);
  });
}

INFERD_EXPORT INFERD_Error* InferdPytorch_ModelInstanceInitialize(
    INFERD_ModelInstance* instance) {
  return Guarded([&]() -> INFERD_Error* {
    INFERD_Model* model = nullptr;
    void* model_state = nullptr;
    if (auto* err = INFERD_ModelInstanceModel(instance, &model)) return err;
    if (auto* err = INFERD_ModelState(model, &model_state)) return err;
    auto* state = static_cast<ModelState*>(model_state);
    TorchModulePtr module;
    if (auto* err = state->TakeModule(&module)) return err;
    auto runner = std::make_unique<InstanceRunner>(state->settings(), state->run_settings(),
                                                   state->binding(), std::move(module),
                                                   state->error_prefix());
    if (auto* err = INFERD_ModelInstanceSetState(instance, runner.get())) return err;
    runner.release();
    return nullptr;
  });
}

INFERD_EXPORT INFERD_Error* InferdPytorch_ModelInstanceFinalize(INFERD_ModelInstance* instance) {
  return Guarded([&]() -> INFERD_Error* {
    void* state = nullptr;
    if (auto* err = INFERD_ModelInstanceState(instance, &state)) return err;
    delete static_cast<InstanceRunner*>(state);
    return INFERD_ModelInstanceSetState(instance, nullptr);
  });
}

// Execute answers and releases every request itself (InstanceRunner), so it
// returns an error only when it could touch none of them.
INFERD_EXPORT INFERD_Error* InferdPytorch_ModelInstanceExecute(INFERD_ModelInstance* instance,
                                                               INFERD_Request** requests,
                                                               uint32_t request_count) {
  return Guarded([&]() -> INFERD_Error* {
    void* state = nullptr;
    if (auto* err = INFERD_ModelInstanceState(instance, &state)) return err;
    if (state == nullptr) {
      return MakeError(INFERD_ERROR_INTERNAL, "pytorch backend: instance has no module");
    }
    static_cast<InstanceRunner*>(state)->Execute(instance, requests, request_count);
    return nullptr;
  });
}

}  // extern "C"

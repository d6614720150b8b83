// The PyTorch backend's entry points, in libinferd_pytorch_impl.so, which
// libinferd_pytorch.so (backend_loader.cc) loads and calls: TorchScript models
// through LibTorch on the CPU. A ModelState per loaded model version and an
// InstanceRunner (its own module) per instance. Every entry point catches what
// it might throw, so no exception crosses the ABI.
#include <memory>
#include <string>

#include "common/entry_points.h"
#include "inferd/backend.h"
#include "instance_runner.h"
#include "model_state.h"

namespace inferd::pytorch {
namespace {

template <typename Fn>
INFERD_Error* Guarded(Fn&& fn) {
  return backend_common::GuardedCall("pytorch", std::forward<Fn>(fn));
}

}  // namespace
}  // namespace inferd::pytorch

namespace common = inferd::backend_common;
using inferd::pytorch::Guarded;
using inferd::pytorch::InstanceRunner;
using inferd::pytorch::ModelState;
using inferd::pytorch::TorchModulePtr;

extern "C" {

INFERD_EXPORT INFERD_Error* InferdPytorch_ModelInitialize(INFERD_Model* model) {
  return Guarded([&]() -> INFERD_Error* {
    std::unique_ptr<ModelState> state;
    if (auto* err = ModelState::Create(model, &state)) return err;
    return common::GiveModelState(model, std::move(state));
  });
}

INFERD_EXPORT INFERD_Error* InferdPytorch_ModelFinalize(INFERD_Model* model) {
  return Guarded([&] { return common::DeleteModelState<ModelState>(model); });
}

INFERD_EXPORT INFERD_Error* InferdPytorch_ModelInstanceInitialize(
    INFERD_ModelInstance* instance) {
  return Guarded([&]() -> INFERD_Error* {
    ModelState* state = nullptr;
    if (auto* err = common::ModelStateOf(instance, &state)) return err;
    TorchModulePtr module;
    if (auto* err = state->TakeModule(&module)) return err;
    return common::GiveInstanceState(
        instance,
        std::make_unique<InstanceRunner>(state->settings(), state->run_settings(),
                                         state->binding(), std::move(module),
                                         state->error_prefix()));
  });
}

INFERD_EXPORT INFERD_Error* InferdPytorch_ModelInstanceFinalize(INFERD_ModelInstance* instance) {
  return Guarded([&] { return common::DeleteInstanceState<InstanceRunner>(instance); });
}

// Execute answers and releases every request itself (InstanceRunner).
INFERD_EXPORT INFERD_Error* InferdPytorch_ModelInstanceExecute(INFERD_ModelInstance* instance,
                                                               INFERD_Request** requests,
                                                               uint32_t request_count) {
  return Guarded([&] {
    return common::ExecuteOnInstance<InstanceRunner>(
        instance, "pytorch backend: instance has no module",
        [&](InstanceRunner& runner) { runner.Execute(instance, requests, request_count); });
  });
}

}  // extern "C"

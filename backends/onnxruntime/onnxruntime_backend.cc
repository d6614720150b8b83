// The ONNX Runtime backend's entry points (libinferd_onnxruntime.so): one ORT
// environment per backend (made on a thread of its own from backend initialize
// on, so the server goes on reading other models' configurations meanwhile;
// model initialize waits for it), a ModelState per loaded model version and an
// InstanceRunner per instance (running the model's one session, or one of its
// own: SessionSettings::share_session); sessions whose thread settings allow
// run on the environment's thread pools (SharedPoolsFit). Every entry point
// catches what it might throw, so no exception crosses the ABI.
//
// Backend settings (--backend-config=onnxruntime,<key>=<value>):
//   default-max-batch-size   max_batch_size auto-completion gives a model that
//                            can batch (default 4, as in Triton; 0 disables)
#include <cstdlib>
#include <future>
#include <memory>
#include <string>

#include "common/config_json.h"
#include "common/config_messages.h"
#include "common/entry_points.h"
#include "config_completion.h"
#include "inferd/backend.h"
#include "instance_runner.h"
#include "model_state.h"
#include "ort_api.h"
#include "ort_session.h"
#include "rapidjson/document.h"

namespace inferd::onnxruntime {
namespace {

namespace common = inferd::backend_common;

// The environment, or why it could not be made.
struct EnvOrError {
  OrtPtr<OrtEnv> env;
  ErrorPtr error;
};

struct BackendState {
  int64_t default_max_batch_size = kDefaultMaxBatchSize;
  // Made on a thread of its own from the backend's initialize (creating it
  // costs ~16 ms of CPU: ORT registers every operator's schema), so that the
  // server reads the models' configurations meanwhile. Last: destroyed first,
  // which waits for that thread.
  std::shared_future<EnvOrError> env;

  // The environment, waiting until it is made; or a copy of its error.
  INFERD_Error* Env(OrtEnv** out) {
    const EnvOrError& made = env.get();
    if (made.error != nullptr) {
      return MakeError(INFERD_ErrorCode(made.error.get()), INFERD_ErrorMessage(made.error.get()));
    }
    *out = made.env.get();
    return nullptr;
  }
};

template <typename Fn>
INFERD_Error* Guarded(Fn&& fn) {
  return common::GuardedCall("onnxruntime", std::forward<Fn>(fn));
}

// Reads --backend-config settings into `state`.
INFERD_Error* ReadBackendConfig(INFERD_Backend* backend, BackendState* state) {
  rapidjson::Document doc;
  if (auto* err = common::ReadBackendConfigJson(backend, &doc)) return err;
  const common::JsonValue* text = common::Member(doc, "default-max-batch-size");
  if (text == nullptr || !text->IsString()) return nullptr;
  const std::optional<int64_t> value = common::AsInt(*text);
  if (!value || *value < 0) {
    return MakeError(INFERD_ERROR_INVALID_ARG, "onnxruntime backend: default-max-batch-size is '" +
                                                   std::string(text->GetString()) +
                                                   "', not a count >= 0");
  }
  state->default_max_batch_size = *value;
  return nullptr;
}

// Makes this new thread's malloc heap ~9 MiB large at once, then frees it.
// glibc grows the heap of a thread's arena (not the main one) with an
// mprotect per page as allocations need it, and keeps what it made accessible
// when it shrinks (madvise). The environment builds ~8 MiB of operator
// schemas: ~1,500 mprotects, ~2 ms of CPU before the first model can load.
void GrowThreadHeap() {
  constexpr size_t kChunk = 96 << 10;  // below malloc's mmap threshold: heap memory
  constexpr int kChunks = 96;
  void* volatile chunks[kChunks];
  for (auto& chunk : chunks) chunk = std::malloc(kChunk);
  for (auto& chunk : chunks) std::free(chunk);
}

void StartCreatingEnv(BackendState* state) {
  state->env = std::async(std::launch::async, [] {
    GrowThreadHeap();
    EnvOrError made;
    OrtEnv* env = nullptr;
    made.error.reset(common::GuardedCall(
        "onnxruntime", [&] { return CreateSharedPoolsEnv(MachineCores(), &env); }));
    made.env.reset(env);
    return made;
  }).share();
}

}  // namespace
}  // namespace inferd::onnxruntime

namespace common = inferd::backend_common;
using inferd::onnxruntime::BackendState;
using inferd::onnxruntime::Guarded;
using inferd::onnxruntime::InstanceRunner;
using inferd::onnxruntime::ModelState;
using inferd::onnxruntime::OrtPtr;

extern "C" {

INFERD_EXPORT INFERD_Error* INFERD_BackendInitialize(INFERD_Backend* backend) {
  return Guarded([&]() -> INFERD_Error* {
    if (auto* err = common::CheckBackendApiVersion("onnxruntime")) return err;
    if (auto* err = inferd::onnxruntime::InitOrtApi()) return err;
    auto state = std::make_unique<BackendState>();
    if (auto* err = inferd::onnxruntime::ReadBackendConfig(backend, state.get())) return err;
    inferd::onnxruntime::StartCreatingEnv(state.get());
    if (auto* err = INFERD_BackendSetState(backend, state.get())) return err;
    state.release();
    return nullptr;
  });
}

INFERD_EXPORT INFERD_Error* INFERD_BackendFinalize(INFERD_Backend* backend) {
  return Guarded([&]() -> INFERD_Error* {
    void* state = nullptr;
    if (auto* err = INFERD_BackendState(backend, &state)) return err;
    delete static_cast<BackendState*>(state);
    return INFERD_BackendSetState(backend, nullptr);
  });
}

INFERD_EXPORT INFERD_Error* INFERD_ModelInitialize(INFERD_Model* model) {
  return Guarded([&]() -> INFERD_Error* {
    INFERD_Backend* backend = nullptr;
    void* backend_state = nullptr;
    if (auto* err = INFERD_ModelBackend(model, &backend)) return err;
    if (auto* err = INFERD_BackendState(backend, &backend_state)) return err;
    auto* shared = static_cast<BackendState*>(backend_state);
    OrtEnv* env = nullptr;
    if (auto* err = shared->Env(&env)) return err;
    std::unique_ptr<ModelState> state;
    if (auto* err = ModelState::Create(model, env, shared->default_max_batch_size, &state)) {
      return err;
    }
    return common::GiveModelState(model, std::move(state));
  });
}

INFERD_EXPORT INFERD_Error* INFERD_ModelFinalize(INFERD_Model* model) {
  return Guarded([&] { return common::DeleteModelState<ModelState>(model); });
}

INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceInitialize(INFERD_ModelInstance* instance) {
  return Guarded([&]() -> INFERD_Error* {
    ModelState* state = nullptr;
    if (auto* err = common::ModelStateOf(instance, &state)) return err;
    std::shared_ptr<OrtSession> session;
    if (auto* err = state->InstanceSession(&session)) return err;
    // OrtSession::Run keeps nothing per calling thread (its pools belong to
    // the session or the environment): a short model may run on the thread
    // that submitted the request.
    if (auto* err = INFERD_ModelInstanceSetExecuteOnAnyThread(instance, true)) return err;
    return common::GiveInstanceState(
        instance, std::make_unique<InstanceRunner>(state->settings(), std::move(session),
                                                   state->error_prefix()));
  });
}

INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceFinalize(INFERD_ModelInstance* instance) {
  return Guarded([&] { return common::DeleteInstanceState<InstanceRunner>(instance); });
}

// Execute answers and releases every request itself (InstanceRunner).
INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceExecute(INFERD_ModelInstance* instance,
                                                        INFERD_Request** requests,
                                                        uint32_t request_count) {
  return Guarded([&] {
    return common::ExecuteOnInstance<InstanceRunner>(
        instance, "onnxruntime backend: instance has no session", [&](InstanceRunner& runner) {
          runner.Execute(instance, std::span<INFERD_Request* const>(requests, request_count));
        });
  });
}

}  // extern "C"

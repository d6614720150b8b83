// The ONNX Runtime backend's entry points (libinferd_onnxruntime.so): one ORT
// environment per backend, a ModelState per loaded model version and an
// InstanceRunner (one ORT session) per instance. Every entry point catches
// what it might throw, so no exception crosses the ABI.
//
// Backend settings (--backend-config=onnxruntime,<key>=<value>):
//   default-max-batch-size   max_batch_size auto-completion gives a model that
//                            can batch (default 4, as in Triton; 0 disables)
#include <cstdlib>
#include <memory>
#include <string>

#include "config_completion.h"
#include "inferd/backend.h"
#include "instance_runner.h"
#include "model_state.h"
#include "ort_api.h"
#include "rapidjson/document.h"

namespace inferd::onnxruntime {
namespace {

struct BackendState {
  OrtPtr<OrtEnv> env;
  int64_t default_max_batch_size = kDefaultMaxBatchSize;
};

template <typename Fn>
INFERD_Error* Guarded(Fn&& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    return MakeError(INFERD_ERROR_INTERNAL, std::string("onnxruntime backend: ") + e.what());
  } catch (...) {
    return MakeError(INFERD_ERROR_INTERNAL, "onnxruntime backend: unknown exception");
  }
}

// Reads --backend-config settings into `state`.
INFERD_Error* ReadBackendConfig(INFERD_Backend* backend, BackendState* state) {
  INFERD_Message* message = nullptr;
  if (auto* err = INFERD_BackendConfig(backend, &message)) return err;
  const char* base = nullptr;
  size_t size = 0;
  INFERD_Error* err = INFERD_MessageSerializeToJson(message, &base, &size);
  rapidjson::Document doc;
  if (err == nullptr) doc.Parse(base, size);
  INFERD_ErrorDelete(INFERD_MessageDelete(message));
  if (err != nullptr) return err;
  if (!doc.IsObject()) return nullptr;
  auto it = doc.FindMember("default-max-batch-size");
  if (it != doc.MemberEnd() && it->value.IsString()) {
    char* end = nullptr;
    const long long value = std::strtoll(it->value.GetString(), &end, 10);
    if (end == it->value.GetString() || *end != '\0' || value < 0) {
      return MakeError(INFERD_ERROR_INVALID_ARG,
                       "onnxruntime backend: default-max-batch-size is '" +
                           std::string(it->value.GetString()) + "', not a count >= 0");
    }
    state->default_max_batch_size = value;
  }
  return nullptr;
}

}  // namespace
}  // namespace inferd::onnxruntime

using inferd::onnxruntime::BackendState;
using inferd::onnxruntime::Guarded;
using inferd::onnxruntime::InstanceRunner;
using inferd::onnxruntime::MakeError;
using inferd::onnxruntime::ModelState;
using inferd::onnxruntime::Ort;
using inferd::onnxruntime::OrtError;
using inferd::onnxruntime::OrtPtr;

extern "C" {

INFERD_EXPORT INFERD_Error* INFERD_BackendInitialize(INFERD_Backend* backend) {
  return Guarded([&]() -> INFERD_Error* {
    uint32_t major = 0, minor = 0;
    if (auto* err = INFERD_BackendApiVersion(&major, &minor)) return err;
    if (major != INFERD_BACKEND_API_VERSION_MAJOR) {
      return MakeError(INFERD_ERROR_UNSUPPORTED,
                       "onnxruntime backend: built for backend API " +
                           std::to_string(INFERD_BACKEND_API_VERSION_MAJOR) +
                           ".x, the server offers " + std::to_string(major) + "." +
                           std::to_string(minor));
    }
    if (auto* err = inferd::onnxruntime::InitOrtApi()) return err;
    auto state = std::make_unique<BackendState>();
    if (auto* err = inferd::onnxruntime::ReadBackendConfig(backend, state.get())) return err;
    OrtEnv* env = nullptr;
    if (auto* err = OrtError(Ort().CreateEnv(ORT_LOGGING_LEVEL_WARNING, "inferd", &env),
                             "onnxruntime backend: creating the ONNX Runtime environment")) {
      return err;
    }
    state->env.reset(env);
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
    std::unique_ptr<ModelState> state;
    if (auto* err = ModelState::Create(model, shared->env.get(), shared->default_max_batch_size,
                                       &state)) {
      return err;
    }
    if (auto* err = INFERD_ModelSetState(model, state.get())) return err;
    state.release();
    return nullptr;
  });
}

INFERD_EXPORT INFERD_Error* INFERD_ModelFinalize(INFERD_Model* model) {
  return Guarded([&]() -> INFERD_Error* {
    void* state = nullptr;
    if (auto* err = INFERD_ModelState(model, &state)) return err;
    delete static_cast<ModelState*>(state);
    return INFERD_ModelSetState(model, nullptr);
  });
}

INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceInitialize(INFERD_ModelInstance* instance) {
  return Guarded([&]() -> INFERD_Error* {
    INFERD_Model* model = nullptr;
    void* model_state = nullptr;
    if (auto* err = INFERD_ModelInstanceModel(instance, &model)) return err;
    if (auto* err = INFERD_ModelState(model, &model_state)) return err;
    const auto* state = static_cast<const ModelState*>(model_state);
    OrtPtr<OrtSession> session;
    if (auto* err = state->CreateInstanceSession(&session)) return err;
    auto runner = std::make_unique<InstanceRunner>(state->settings(), std::move(session),
                                                   state->error_prefix());
    if (auto* err = INFERD_ModelInstanceSetState(instance, runner.get())) return err;
    runner.release();
    return nullptr;
  });
}

INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceFinalize(INFERD_ModelInstance* instance) {
  return Guarded([&]() -> INFERD_Error* {
    void* state = nullptr;
    if (auto* err = INFERD_ModelInstanceState(instance, &state)) return err;
    delete static_cast<InstanceRunner*>(state);
    return INFERD_ModelInstanceSetState(instance, nullptr);
  });
}

// Execute answers and releases every request itself (InstanceRunner), so it
// returns an error only when it could touch none of them.
INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceExecute(INFERD_ModelInstance* instance,
                                                        INFERD_Request** requests,
                                                        uint32_t request_count) {
  return Guarded([&]() -> INFERD_Error* {
    void* state = nullptr;
    if (auto* err = INFERD_ModelInstanceState(instance, &state)) return err;
    if (state == nullptr) {
      return MakeError(INFERD_ERROR_INTERNAL, "onnxruntime backend: instance has no session");
    }
    static_cast<InstanceRunner*>(state)->Execute(
        instance, std::span<INFERD_Request* const>(requests, request_count));
    return nullptr;
  });
}

}  // extern "C"

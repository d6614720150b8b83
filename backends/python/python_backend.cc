// The Python backend's entry points: a model version gets its ModelSettings
// (and, when the server allows it, the configuration auto_complete_config
// produces); each instance a StubInstance running model.py in a process of its
// own. Everything with logic lives in the files these call.
#include <memory>
#include <string>

#include "auto_complete.h"
#include "backend_io.h"
#include "inferd/backend.h"
#include "inferd/backend_bls.h"  // INFERD_ModelServer
#include "model_control.h"
#include "model_settings.h"
#include "stub_instance.h"

namespace inferd::python {
namespace {

const char* KindName(INFERD_InstanceKind kind) {
  switch (kind) {
    case INFERD_INSTANCE_KIND_GPU: return "GPU";
    case INFERD_INSTANCE_KIND_MODEL: return "MODEL";
    case INFERD_INSTANCE_KIND_AUTO: return "AUTO";
    default: return "CPU";
  }
}

Status InitializeModel(INFERD_Model* model) {
  auto settings = std::make_unique<ModelSettings>();
  if (Status s = LoadModelSettings(model, settings.get()); !s.ok()) return s;
  settings->model = model;
  bool may_complete = false;
  if (Status s = FromError(INFERD_ModelAutoCompleteConfig(model, &may_complete)); !s.ok()) {
    return s;
  }
  if (may_complete) {
    std::string completed;
    if (Status s = AutoCompleteConfig(*settings, &completed); !s.ok()) return s;
    if (completed != settings->config_json) {
      if (Status s = FromError(INFERD_ModelSetConfig(model, completed.c_str())); !s.ok()) {
        return s.WithPrefix(settings->Label() + ": the configuration auto_complete_config made: ");
      }
      // Instances see the configuration as the server completed it.
      if (Status s = LoadModelSettings(model, settings.get()); !s.ok()) return s;
    }
  }
  return FromError(INFERD_ModelSetState(model, settings.release()));
}

Status InitializeInstance(INFERD_ModelInstance* instance) {
  INFERD_Model* model = nullptr;
  void* state = nullptr;
  const char* name = nullptr;
  INFERD_InstanceKind kind = INFERD_INSTANCE_KIND_CPU;
  int32_t device_id = 0;
  if (Status s = FromError(INFERD_ModelInstanceModel(instance, &model)); !s.ok()) return s;
  if (Status s = FromError(INFERD_ModelState(model, &state)); !s.ok()) return s;
  if (Status s = FromError(INFERD_ModelInstanceName(instance, &name)); !s.ok()) return s;
  if (Status s = FromError(INFERD_ModelInstanceKind(instance, &kind)); !s.ok()) return s;
  if (Status s = FromError(INFERD_ModelInstanceDeviceId(instance, &device_id)); !s.ok()) return s;
  INFERD_Server* server = nullptr;
  if (Status s = FromError(INFERD_ModelServer(model, &server)); !s.ok()) return s;
  auto stub = std::make_unique<StubInstance>(*static_cast<ModelSettings*>(state), server, name,
                                             KindName(kind), device_id);
  if (Status s = stub->Start(); !s.ok()) return s;
  // Execute keeps nothing per thread (it hands the batch to the stub and
  // reads the answer on whichever thread called it), so a short execute()
  // may run on the frontend's thread: that saves a hand-over to the
  // instance's thread and back, two of a request's four wake-ups. A decoupled
  // model answers on the supervisor's thread anyway (and unary calls, the
  // only ones allowed to, cannot reach it).
  if (!static_cast<ModelSettings*>(state)->decoupled) {
    if (Status s = FromError(INFERD_ModelInstanceSetExecuteOnAnyThread(instance, true)); !s.ok()) {
      return s;
    }
  }
  return FromError(INFERD_ModelInstanceSetState(instance, stub.release()));
}

}  // namespace
}  // namespace inferd::python

using inferd::python::ModelSettings;
using inferd::python::StubInstance;
using inferd::python::ToError;

extern "C" {

__attribute__((visibility("default"))) INFERD_Error* INFERD_BackendInitialize(INFERD_Backend*) {
  uint32_t major = 0, minor = 0;
  if (INFERD_Error* err = INFERD_BackendApiVersion(&major, &minor)) return err;
  if (major != INFERD_BACKEND_API_VERSION_MAJOR || minor < INFERD_BACKEND_API_VERSION_MINOR) {
    const std::string need = "python backend: the server's backend API is too old (need 0." +
                             std::to_string(INFERD_BACKEND_API_VERSION_MINOR) + ")";
    return INFERD_ErrorNew(INFERD_ERROR_UNSUPPORTED, need.c_str());
  }
  return nullptr;
}

// Loads and unloads models asked for end before the library may go.
__attribute__((visibility("default"))) INFERD_Error* INFERD_BackendFinalize(INFERD_Backend*) {
  inferd::python::AwaitModelControls();
  return nullptr;
}

__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelInitialize(INFERD_Model* model) {
  return ToError(inferd::python::InitializeModel(model));
}

__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelFinalize(INFERD_Model* model) {
  void* state = nullptr;
  INFERD_ErrorDelete(INFERD_ModelState(model, &state));
  delete static_cast<ModelSettings*>(state);
  return nullptr;
}

__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelInstanceInitialize(
    INFERD_ModelInstance* instance) {
  return ToError(inferd::python::InitializeInstance(instance));
}

__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelInstanceFinalize(
    INFERD_ModelInstance* instance) {
  void* state = nullptr;
  INFERD_ErrorDelete(INFERD_ModelInstanceState(instance, &state));
  delete static_cast<StubInstance*>(state);  // runs finalize() in the stub
  return nullptr;
}

__attribute__((visibility("default"))) INFERD_Error* INFERD_ModelInstanceExecute(
    INFERD_ModelInstance* instance, INFERD_Request** requests, uint32_t request_count) {
  void* state = nullptr;
  if (INFERD_Error* err = INFERD_ModelInstanceState(instance, &state)) return err;
  static_cast<StubInstance*>(state)->Execute(instance, requests, request_count);
  return nullptr;
}

}  // extern "C"

// libinferd_pytorch.so: the PyTorch backend as the server loads it. It links
// no LibTorch. LibTorch runs operators on OpenMP (libgomp), which reads
// OMP_WAIT_POLICY once, when it is loaded; its default lets idle pool threads
// spin, taking the cores the frontends, the batcher and the other instances
// need (the bench MLP served at a quarter of the rows per second on a busy
// two-core machine). So BackendInitialize sets OMP_WAIT_POLICY=PASSIVE unless
// the environment already sets it, and only then loads the backend proper,
// libinferd_pytorch_impl.so from this library's folder, whose entry points
// (InferdPytorch_<Entry>) every other entry point here calls. The library is
// never unloaded (LibTorch does not support it). A process that loaded libgomp
// before (another OpenMP library) keeps the policy it started with.
#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include "inferd/backend.h"

namespace {

using ModelFn = INFERD_Error* (*)(INFERD_Model*);
using InstanceFn = INFERD_Error* (*)(INFERD_ModelInstance*);
using ExecuteFn = INFERD_Error* (*)(INFERD_ModelInstance*, INFERD_Request**, uint32_t);

// The backend proper's entry points. Written once by BackendInitialize, which
// the server calls before any model entry point and never concurrently with one.
struct Impl {
  ModelFn model_initialize = nullptr;
  ModelFn model_finalize = nullptr;
  InstanceFn instance_initialize = nullptr;
  InstanceFn instance_finalize = nullptr;
  ExecuteFn execute = nullptr;
};
Impl g_impl;

INFERD_Error* Error(INFERD_Error_Code code, const std::string& message) {
  return INFERD_ErrorNew(code, ("pytorch backend: " + message).c_str());
}

// <folder of this library>/libinferd_pytorch_impl.so.
std::string ImplPath() {
  Dl_info info{};
  std::string path;
  if (dladdr(reinterpret_cast<void*>(&ImplPath), &info) != 0 && info.dli_fname != nullptr) {
    path = info.dli_fname;
  }
  const size_t slash = path.rfind('/');
  return (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) +
         "libinferd_pytorch_impl.so";
}

template <typename Fn>
bool Find(void* library, const char* name, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(library, name));
  return *fn != nullptr;
}

INFERD_Error* LoadImpl() {
  // Before LibTorch (and with it libgomp) is loaded; an operator's setting wins.
  setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
  const std::string path = ImplPath();
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* why = dlerror();
    return Error(INFERD_ERROR_NOT_FOUND,
                 "cannot load " + path + ": " + (why != nullptr ? why : "unknown error"));
  }
  Impl impl;
  if (!Find(library, "InferdPytorch_ModelInitialize", &impl.model_initialize) ||
      !Find(library, "InferdPytorch_ModelFinalize", &impl.model_finalize) ||
      !Find(library, "InferdPytorch_ModelInstanceInitialize", &impl.instance_initialize) ||
      !Find(library, "InferdPytorch_ModelInstanceFinalize", &impl.instance_finalize) ||
      !Find(library, "InferdPytorch_ModelInstanceExecute", &impl.execute)) {
    return Error(INFERD_ERROR_INTERNAL, path + " lacks an entry point of this backend");
  }
  g_impl = impl;
  return nullptr;
}

INFERD_Error* NotLoaded() {
  return Error(INFERD_ERROR_INTERNAL, "called before the backend was initialized");
}

}  // namespace

extern "C" {

INFERD_EXPORT INFERD_Error* INFERD_BackendInitialize(INFERD_Backend* backend) {
  uint32_t major = 0, minor = 0;
  if (auto* err = INFERD_BackendApiVersion(&major, &minor)) return err;
  if (major != INFERD_BACKEND_API_VERSION_MAJOR) {
    return Error(INFERD_ERROR_UNSUPPORTED,
                 "built for backend API " + std::to_string(INFERD_BACKEND_API_VERSION_MAJOR) +
                     ".x, the server offers " + std::to_string(major) + "." +
                     std::to_string(minor));
  }
  return g_impl.execute != nullptr ? nullptr : LoadImpl();
}

INFERD_EXPORT INFERD_Error* INFERD_ModelInitialize(INFERD_Model* model) {
  return g_impl.model_initialize ? g_impl.model_initialize(model) : NotLoaded();
}

INFERD_EXPORT INFERD_Error* INFERD_ModelFinalize(INFERD_Model* model) {
  return g_impl.model_finalize ? g_impl.model_finalize(model) : NotLoaded();
}

INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceInitialize(INFERD_ModelInstance* instance) {
  return g_impl.instance_initialize ? g_impl.instance_initialize(instance) : NotLoaded();
}

INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceFinalize(INFERD_ModelInstance* instance) {
  return g_impl.instance_finalize ? g_impl.instance_finalize(instance) : NotLoaded();
}

INFERD_EXPORT INFERD_Error* INFERD_ModelInstanceExecute(INFERD_ModelInstance* instance,
                                                        INFERD_Request** requests,
                                                        uint32_t request_count) {
  return g_impl.execute ? g_impl.execute(instance, requests, request_count) : NotLoaded();
}

}  // extern "C"

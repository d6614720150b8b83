#include "core/backend/backend_library.h"

#include <dlfcn.h>

#include "core/common/c_error.h"
#include "core/common/logging.h"

// Under AddressSanitizer a backend library stays mapped once closed:
// LeakSanitizer checks at exit, and memory that a library's static objects
// keep (ONNX Runtime's do: 80 bytes) is reachable only while it is mapped, so
// unmapping it made each sanitized server that had loaded an ONNX model fail.
#if defined(__SANITIZE_ADDRESS__)
#define INFERD_UNDER_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define INFERD_UNDER_ADDRESS_SANITIZER 1
#endif
#endif
#ifndef INFERD_UNDER_ADDRESS_SANITIZER
#define INFERD_UNDER_ADDRESS_SANITIZER 0
#endif

namespace inferd {
namespace {

template <typename Fn>
Fn Resolve(void* dl_handle, const char* symbol) {
  return reinterpret_cast<Fn>(dlsym(dl_handle, symbol));
}

}  // namespace

BackendLibrary::BackendLibrary(std::string name, std::filesystem::path path,
                               std::map<std::string, std::string> settings, void* dl_handle)
    : name_(std::move(name)),
      path_(std::move(path)),
      settings_(std::move(settings)),
      dl_handle_(dl_handle) {}

StatusOr<std::unique_ptr<BackendLibrary>> BackendLibrary::Open(
    std::string name, std::filesystem::path path, std::map<std::string, std::string> settings) {
  // RTLD_LOCAL keeps one backend's symbols from clashing with another's.
  void* dl_handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (dl_handle == nullptr) {
    return Status::Unavailable("backend '" + name + "': cannot load " + path.string() + ": " +
                               dlerror());
  }
  std::unique_ptr<BackendLibrary> library(
      new BackendLibrary(std::move(name), std::move(path), std::move(settings), dl_handle));
  BackendLibrary& lib = *library;
  lib.backend_finalize_ = Resolve<BackendFn>(dl_handle, "INFERD_BackendFinalize");
  lib.model_initialize_ = Resolve<ModelFn>(dl_handle, "INFERD_ModelInitialize");
  lib.model_finalize_ = Resolve<ModelFn>(dl_handle, "INFERD_ModelFinalize");
  lib.instance_initialize_ = Resolve<InstanceFn>(dl_handle, "INFERD_ModelInstanceInitialize");
  lib.instance_finalize_ = Resolve<InstanceFn>(dl_handle, "INFERD_ModelInstanceFinalize");
  lib.execute_ = Resolve<ExecuteFn>(dl_handle, "INFERD_ModelInstanceExecute");
  if (lib.execute_ == nullptr) {
    return Status::Unavailable("backend '" + lib.name_ + "' (" + lib.path_.string() +
                               ") does not export INFERD_ModelInstanceExecute");
  }
  if (auto init = Resolve<BackendFn>(dl_handle, "INFERD_BackendInitialize")) {
    RETURN_IF_ERROR(TakeError(init(lib.handle()))
                        .WithPrefix("backend '" + lib.name_ + "' failed to initialize: "));
  }
  lib.initialized_ = true;
  LOG_INFO("loaded backend '{}' from {}", lib.name_, lib.path_.string());
  return library;
}

BackendLibrary::~BackendLibrary() {
  if (initialized_ && backend_finalize_ != nullptr) {
    Status status = TakeError(backend_finalize_(handle()));
    if (!status.ok()) LOG_ERROR("backend '{}' failed to finalize: {}", name_, status.message());
  }
#if !INFERD_UNDER_ADDRESS_SANITIZER
  dlclose(dl_handle_);
#endif
}

}  // namespace inferd

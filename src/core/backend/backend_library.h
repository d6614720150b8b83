// One backend shared library (libinferd_<name>.so): opened once, initialized
// once, finalized and closed when the last model using it is gone. It is the
// object behind INFERD_Backend. Thread-safe after Open().
#ifndef INFERD_CORE_BACKEND_BACKEND_LIBRARY_H_
#define INFERD_CORE_BACKEND_BACKEND_LIBRARY_H_

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "inferd/base/status.h"
#include "inferd/backend.h"

namespace inferd {

class BackendLibrary {
 public:
  using BackendFn = INFERD_Error* (*)(INFERD_Backend*);
  using ModelFn = INFERD_Error* (*)(INFERD_Model*);
  using InstanceFn = INFERD_Error* (*)(INFERD_ModelInstance*);
  using ExecuteFn = INFERD_Error* (*)(INFERD_ModelInstance*, INFERD_Request**, uint32_t);

  // Opens `path`, resolves the entry points and runs INFERD_BackendInitialize.
  // `settings` are this backend's --backend-config pairs.
  static StatusOr<std::unique_ptr<BackendLibrary>> Open(
      std::string name, std::filesystem::path path, std::map<std::string, std::string> settings);
  // Runs INFERD_BackendFinalize and closes the library.
  ~BackendLibrary();
  BackendLibrary(const BackendLibrary&) = delete;
  BackendLibrary& operator=(const BackendLibrary&) = delete;

  const std::string& name() const { return name_; }
  const std::filesystem::path& path() const { return path_; }
  const std::map<std::string, std::string>& settings() const { return settings_; }
  void* state = nullptr;  // the backend's own, see INFERD_BackendSetState

  // Entry points; all but execute may be null.
  ModelFn model_initialize() const { return model_initialize_; }
  ModelFn model_finalize() const { return model_finalize_; }
  InstanceFn instance_initialize() const { return instance_initialize_; }
  InstanceFn instance_finalize() const { return instance_finalize_; }
  ExecuteFn execute() const { return execute_; }

  INFERD_Backend* handle() { return reinterpret_cast<INFERD_Backend*>(this); }
  static BackendLibrary* FromHandle(INFERD_Backend* handle) {
    return reinterpret_cast<BackendLibrary*>(handle);
  }

 private:
  BackendLibrary(std::string name, std::filesystem::path path,
                 std::map<std::string, std::string> settings, void* dl_handle);

  const std::string name_;
  const std::filesystem::path path_;
  const std::map<std::string, std::string> settings_;
  void* const dl_handle_;
  bool initialized_ = false;
  BackendFn backend_finalize_ = nullptr;
  ModelFn model_initialize_ = nullptr;
  ModelFn model_finalize_ = nullptr;
  InstanceFn instance_initialize_ = nullptr;
  InstanceFn instance_finalize_ = nullptr;
  ExecuteFn execute_ = nullptr;
};

}  // namespace inferd

#endif  // INFERD_CORE_BACKEND_BACKEND_LIBRARY_H_

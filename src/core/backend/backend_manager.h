// Finds backend libraries in DESIGN.md's search order and shares one
// BackendLibrary per file among the models that use it. Thread-safe.
#ifndef INFERD_CORE_BACKEND_BACKEND_MANAGER_H_
#define INFERD_CORE_BACKEND_BACKEND_MANAGER_H_

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/backend/backend_library.h"
#include "inferd/base/mutex.h"

namespace inferd {

class BackendManager {
 public:
  // `backend_directory` holds <name>/libinferd_<name>.so; `settings` maps a
  // backend name to its --backend-config pairs.
  BackendManager(std::filesystem::path backend_directory,
                 std::map<std::string, std::map<std::string, std::string>> settings);

  // The library for backend `name` as seen from model folder `model_dir` and
  // version `version`: <model_dir>/<version>/, then <model_dir>/, then the
  // backend directory. The library stays open while a returned pointer lives.
  StatusOr<std::shared_ptr<BackendLibrary>> Acquire(const std::string& name,
                                                    const std::filesystem::path& model_dir,
                                                    int64_t version) EXCLUDES(mu_);

  // From now on every library opened stays open until the manager goes,
  // however many models use it. The memory budget needs this: a backend's own
  // set-up (ONNX Runtime's environment and thread pools) would otherwise be
  // made again, and charged to whichever model loads next, each time the last
  // model of that backend is evicted; and whether the library had closed yet
  // depended on when the unload finished.
  void KeepLibrariesOpen() EXCLUDES(mu_);

  // Where Acquire would look, in order (for tests and error messages).
  std::vector<std::filesystem::path> Candidates(const std::string& name,
                                                const std::filesystem::path& model_dir,
                                                int64_t version) const;

 private:
  const std::filesystem::path backend_directory_;
  const std::map<std::string, std::map<std::string, std::string>> settings_;

  Mutex mu_;
  // By the library file's canonical path: one library per file, however named.
  std::map<std::filesystem::path, std::weak_ptr<BackendLibrary>> open_ GUARDED_BY(mu_);
  // By the candidate path it was found at, so that the next model finding it
  // there skips canonicalizing (a readlink per path component) while it is
  // open: 100 models of one backend, a thousand syscalls.
  std::map<std::filesystem::path, std::weak_ptr<BackendLibrary>> found_at_ GUARDED_BY(mu_);
  bool keep_open_ GUARDED_BY(mu_) = false;
  std::vector<std::shared_ptr<BackendLibrary>> kept_ GUARDED_BY(mu_);  // KeepLibrariesOpen
};

}  // namespace inferd

#endif  // INFERD_CORE_BACKEND_BACKEND_MANAGER_H_

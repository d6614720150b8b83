// Where models come from (TF Serving's Source): which model folders exist now,
// and a fingerprint of each one's files that tells when they changed. A source
// loads nothing and keeps no state about what is loaded; the lifecycle decides
// what to load, reload or unload from what its source reports. Model folders
// on local disk are one source; object stores are another (repository_source.h:
// it hands out local copies, made by Materialize). Implementations are thread-safe.
#ifndef INFERD_CORE_REPOSITORY_MODEL_SOURCE_H_
#define INFERD_CORE_REPOSITORY_MODEL_SOURCE_H_

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/repository/model_fingerprint.h"
#include "core/repository/model_repository.h"
#include "inferd/base/status.h"

namespace inferd {

class ModelSource {
 public:
  virtual ~ModelSource() = default;
  // Every model the source offers now, sorted by name. An error means the
  // source as a whole cannot be read.
  virtual StatusOr<std::vector<ModelLocation>> List() const = 0;
  // List()'s entries of model `name` only (none: an empty list).
  virtual StatusOr<std::vector<ModelLocation>> Find(const std::string& name) const = 0;
  // A summary of `location`'s files; equal summaries mean nothing changed.
  virtual ModelFingerprint Fingerprint(const ModelLocation& location) const = 0;
  // Makes `location.dir` hold the model's files before a load reads them: a
  // source handing out local copies (repository_source.h) downloads them
  // here. Local folders are already there.
  virtual Status Materialize(const ModelLocation& location) const { return Status::Ok(); }
  // What MaterializeEach tells as each model gets ready: its index in the
  // list, and Materialize's outcome for it.
  using Arrived = std::function<void(size_t index, Status status)>;
  // Materialize for many models at once (a start loading them all): a source
  // handing out local copies downloads them side by side, and calls `arrived`
  // for each as soon as its own copy is whole (from the threads copying, in
  // the order the copies finish), so that a model can load while the others
  // still download. A failure is that model's alone. Returns after the last
  // call; a Materialize of a model still being copied waits for that copy.
  virtual void MaterializeEach(const std::vector<ModelLocation>& locations,
                               const Arrived& arrived) const {
    for (size_t i = 0; i < locations.size(); ++i) arrived(i, Materialize(locations[i]));
  }
  // No version of the model of `key` (ModelKey) is loaded any more: a source
  // handing out local copies may remove its copy when it needs the room.
  virtual void Release(const std::string& key) const {}
};

// The model folders under one or more repository roots (--model-repository).
class FolderSource final : public ModelSource {
 public:
  // With `namespacing`, each root is the namespace of its models.
  explicit FolderSource(std::vector<std::filesystem::path> roots, bool namespacing = false)
      : roots_(std::move(roots)), namespacing_(namespacing) {}

  StatusOr<std::vector<ModelLocation>> List() const override {
    return ScanRepositories(roots_, namespacing_);
  }
  StatusOr<std::vector<ModelLocation>> Find(const std::string& name) const override {
    return FindModelFolders(roots_, name, namespacing_);
  }
  ModelFingerprint Fingerprint(const ModelLocation& location) const override {
    return FingerprintModel(location.dir);
  }

 private:
  const std::vector<std::filesystem::path> roots_;
  const bool namespacing_;
};

}  // namespace inferd

#endif  // INFERD_CORE_REPOSITORY_MODEL_SOURCE_H_

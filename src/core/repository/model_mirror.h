// Local copies of models that live in object stores: the cache behind
// --model-repository-cache-directory. Each object is downloaded once, keyed
// by (store, key, ETag/generation), into <dir>/objects/; a model's folder is
// assembled from hard links to its objects under a temporary name and
// renamed into <dir>/models/<store>/<model>/<content hash>/<model>, so a
// load never sees half a model, and a changed object (new ETag) is the only
// one fetched again when the model changes. Folders and objects survive
// restarts: a second start finds the folder and downloads nothing. With a
// byte limit, the objects' total is kept under it by removing the least
// recently used model folders other than the latest of each model still in
// use (materialized and not released since), and the objects no folder links
// to any more. Thread-safe.
#ifndef INFERD_CORE_REPOSITORY_MODEL_MIRROR_H_
#define INFERD_CORE_REPOSITORY_MODEL_MIRROR_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/cloud/object_fetcher.h"
#include "core/cloud/object_store.h"
#include "inferd/base/mutex.h"
#include "inferd/base/status.h"

namespace inferd {

struct MirrorOptions {
  std::filesystem::path dir;  // created if missing
  uint64_t byte_limit = 0;    // 0: no limit
  FetchOptions fetch;
};

class ModelMirror {
 public:
  explicit ModelMirror(MirrorOptions options);

  // Creates the cache's folders and removes what a crash left in its tmp/.
  Status Open();

  // Where model `model` of `store` with exactly `objects` (keys relative to
  // the repository root, all under "<model>/") lives once materialized.
  std::filesystem::path FolderFor(const ObjectStore& store, const std::string& model,
                                  const std::vector<ObjectInfo>& objects) const;

  // Makes FolderFor(...) exist, fetching only the objects the cache lacks.
  Status Materialize(const ObjectStore& store, const std::string& model,
                     const std::vector<ObjectInfo>& objects);

  // One model of MaterializeEach: its name and objects.
  struct ModelObjects {
    std::string model;
    std::vector<ObjectInfo> objects;
  };
  // Materializes each of `models` of `store`, their objects downloading side
  // by side (the first models' first); `done(i, status)` is called for
  // models[i] as soon as its folder is in place or failed, from a fetching
  // thread. A failure is that model's alone. Returns after the last call.
  void MaterializeEach(const ObjectStore& store, const std::vector<ModelObjects>& models,
                       const std::function<void(size_t, Status)>& done);

  // Model `model` of `store` is no longer loaded: its latest folder may go
  // when the cache is over its limit (at once, if it is). A later
  // Materialize makes it the latest again.
  void Release(const ObjectStore& store, const std::string& model);

  // Objects fetched by this mirror since it was made (tests, logs).
  FetchStats fetched() const;

 private:
  std::filesystem::path ObjectPath(const ObjectStore& store, const ObjectInfo& object) const;
  Status FetchMissing(const ObjectStore& store, const std::vector<ObjectInfo>& objects,
                      FetchStats* stats);
  // An error when an object of `objects` would land outside model `model`'s folder.
  static Status CheckKeys(const ObjectStore& store, const std::string& model,
                          const std::vector<ObjectInfo>& objects);
  // Materialize once the keys are checked; `stats`: what was fetched for it already.
  Status Place(const ObjectStore& store, const std::string& model,
               const std::vector<ObjectInfo>& objects, FetchStats stats);
  // Links the objects into a temporary folder and renames it to `set_dir`;
  // false when an object vanished meanwhile (evicted: fetch again).
  StatusOr<bool> Assemble(const ObjectStore& store, const std::string& model,
                          const std::vector<ObjectInfo>& objects,
                          const std::filesystem::path& set_dir) REQUIRES(mu_);
  void EvictOverLimit() REQUIRES(mu_);

  const MirrorOptions options_;
  mutable Mutex mu_;
  // "<store>/<model>" -> its latest folder, never evicted until released.
  std::map<std::string, std::filesystem::path> latest_ GUARDED_BY(mu_);
  FetchStats fetched_ GUARDED_BY(mu_);
};

}  // namespace inferd

#endif  // INFERD_CORE_REPOSITORY_MODEL_MIRROR_H_

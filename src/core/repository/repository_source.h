// The model source of a server whose --model-repository list holds object
// store URLs (s3://, gs://, as://), alone or mixed with local folders. A
// local folder is read as FolderSource reads it; a URL is listed through its
// ObjectStore (store_registry.h): each top-level "folder" of the repository's
// root is a model, whose location's `dir` is the local copy ModelMirror will
// make of exactly the objects listed, and whose fingerprint is computed from
// their ETags / generations (nothing is downloaded to tell a change). The
// copy is made by Materialize, which the lifecycle calls before it reads a
// model's folder. Namespacing, name clashes across repositories and hidden
// folders work as for local folders; a cloud repository's namespace is its
// URL. Thread-safe.
#ifndef INFERD_CORE_REPOSITORY_REPOSITORY_SOURCE_H_
#define INFERD_CORE_REPOSITORY_REPOSITORY_SOURCE_H_

#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/cloud/cloud_credentials.h"
#include "core/cloud/http_client.h"
#include "core/cloud/object_store.h"
#include "core/repository/model_mirror.h"
#include "core/repository/model_source.h"
#include "inferd/base/mutex.h"

namespace inferd {

struct RepositorySourceOptions {
  std::vector<std::string> repositories;  // local folders and object store URLs
  bool namespacing = false;
  MirrorOptions mirror;                   // mirror.dir empty: DefaultModelCacheDirectory()
  EnvReader env;                          // null: the process's environment
  std::shared_ptr<HttpTransport> transport;  // null: libcurl
  Sleeper* sleeper = nullptr;                // null: real sleeps
};

// $XDG_CACHE_HOME/inferd/model-repositories, else ~/.cache/inferd/...,
// else <temp>/inferd-model-repositories.
std::filesystem::path DefaultModelCacheDirectory(const EnvReader& env);

// The source a server (or a repository check) reads `repositories` through:
// FolderSource when every one is a local folder, else a RepositorySource
// copying into `mirror` (its dir empty: DefaultModelCacheDirectory()).
StatusOr<std::shared_ptr<const ModelSource>> OpenModelSource(
    const std::vector<std::string>& repositories, bool namespacing, MirrorOptions mirror);

class RepositorySource final : public ModelSource {
 public:
  // Opens every URL's store (no request sent yet) and the cache.
  static StatusOr<std::shared_ptr<RepositorySource>> Create(RepositorySourceOptions options);

  StatusOr<std::vector<ModelLocation>> List() const override;
  StatusOr<std::vector<ModelLocation>> Find(const std::string& name) const override;
  ModelFingerprint Fingerprint(const ModelLocation& location) const override;
  Status Materialize(const ModelLocation& location) const override;
  void MaterializeEach(const std::vector<ModelLocation>& locations,
                       const Arrived& arrived) const override;
  void Release(const std::string& key) const override;

  ModelMirror& mirror() const { return *mirror_; }

 private:
  struct Root {
    std::filesystem::path local;          // a local folder, or
    std::unique_ptr<ObjectStore> store;   // an object store
    std::string text;                     // as given (a URL without its trailing '/')
  };
  // The objects a handed-out cloud location stands for.
  struct Snapshot {
    const Root* root = nullptr;
    std::string name;
    std::vector<ObjectInfo> objects;
  };
  struct Found {
    ModelLocation location;
    std::string origin;  // for messages: the folder or "<url>/<name>"
  };

  RepositorySource() = default;
  StatusOr<std::vector<Found>> FromRoot(const Root& root, const std::string* name) const;
  std::vector<Found> Group(const Root& root, std::vector<ObjectInfo> objects) const;
  StatusOr<std::vector<ModelLocation>> Merge(const std::string* name) const;

  bool namespacing_ = false;
  std::vector<Root> roots_;
  std::unique_ptr<CloudCredentials> credentials_;
  std::unique_ptr<HttpClient> http_;
  std::unique_ptr<ModelMirror> mirror_;
  mutable Mutex mu_;
  mutable std::map<std::filesystem::path, Snapshot> snapshots_ GUARDED_BY(mu_);
  // The local copies MaterializeEach is making now: Materialize waits for them.
  mutable std::multiset<std::filesystem::path> arriving_ GUARDED_BY(mu_);
  mutable CondVar arrived_;
};

}  // namespace inferd

#endif  // INFERD_CORE_REPOSITORY_REPOSITORY_SOURCE_H_

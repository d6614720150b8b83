#include "core/repository/repository_source.h"

#include <algorithm>
#include <charconv>
#include <thread>

#include "core/cloud/cloud_url.h"
#include "core/cloud/curl_transport.h"
#include "core/cloud/store_registry.h"
#include "core/common/logging.h"

namespace inferd {
namespace {

namespace fs = std::filesystem;

void Mix(uint64_t& hash, std::string_view text) {
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  hash ^= 0xff;  // a separator, so ("ab","c") and ("a","bc") differ
  hash *= 1099511628211ull;
}

// The version a numeric first segment names (> 0), or 0.
int64_t VersionOf(std::string_view segment) {
  int64_t version = 0;
  auto [end, err] = std::from_chars(segment.data(), segment.data() + segment.size(), version);
  return err == std::errc() && end == segment.data() + segment.size() && version > 0 ? version : 0;
}

bool ValidModelName(const std::string& name) {
  return !name.empty() && name[0] != '.' && name.find('/') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

std::string InSeveral(const std::string& name, const std::string& first,
                      const std::string& second) {
  return "model '" + name + "' appears in more than one repository (" + first + " and " + second +
         "); a model name must be unique across repositories";
}

}  // namespace

fs::path DefaultModelCacheDirectory(const EnvReader& env) {
  const std::string xdg = env("XDG_CACHE_HOME").value_or("");
  if (!xdg.empty()) return fs::path(xdg) / "inferd" / "model-repositories";
  const std::string home = env("HOME").value_or("");
  if (!home.empty()) return fs::path(home) / ".cache" / "inferd" / "model-repositories";
  return fs::temp_directory_path() / "inferd-model-repositories";
}

StatusOr<std::shared_ptr<const ModelSource>> OpenModelSource(
    const std::vector<std::string>& repositories, bool namespacing, MirrorOptions mirror) {
  if (std::none_of(repositories.begin(), repositories.end(),
                   [](const std::string& path) { return IsCloudUrl(path); })) {
    return std::shared_ptr<const ModelSource>(std::make_shared<FolderSource>(
        std::vector<fs::path>(repositories.begin(), repositories.end()), namespacing));
  }
  RepositorySourceOptions options;
  options.repositories = repositories;
  options.namespacing = namespacing;
  options.mirror = std::move(mirror);
  ASSIGN_OR_RETURN(std::shared_ptr<RepositorySource> source,
                   RepositorySource::Create(std::move(options)));
  return std::shared_ptr<const ModelSource>(std::move(source));
}

StatusOr<std::shared_ptr<RepositorySource>> RepositorySource::Create(
    RepositorySourceOptions options) {
  std::shared_ptr<RepositorySource> source(new RepositorySource());
  source->namespacing_ = options.namespacing;
  if (!options.env) options.env = ProcessEnvironment();
  ASSIGN_OR_RETURN(CloudCredentials credentials, CloudCredentials::Load(options.env));
  source->credentials_ = std::make_unique<CloudCredentials>(std::move(credentials));
  if (!options.transport) options.transport = std::make_shared<CurlTransport>();
  source->http_ = std::make_unique<HttpClient>(
      options.transport, RetryPolicy{},
      options.sleeper != nullptr ? options.sleeper : &Sleeper::Real());
  if (options.mirror.dir.empty()) options.mirror.dir = DefaultModelCacheDirectory(options.env);
  source->mirror_ = std::make_unique<ModelMirror>(options.mirror);
  const StoreContext context{source->http_.get(), source->credentials_.get()};
  bool any_cloud = false;
  for (const std::string& repository : options.repositories) {
    Root root;
    if (IsCloudUrl(repository)) {
      ASSIGN_OR_RETURN(root.store, OpenObjectStore(repository, context));
      root.text = root.store->Url();
      any_cloud = true;
    } else {
      root.local = repository;
      root.text = repository;
      while (root.text.size() > 1 && root.text.back() == '/') root.text.pop_back();
    }
    source->roots_.push_back(std::move(root));
  }
  if (any_cloud) RETURN_IF_ERROR(source->mirror_->Open());
  return source;
}

std::vector<RepositorySource::Found> RepositorySource::Group(const Root& root,
                                                             std::vector<ObjectInfo> objects) const {
  std::map<std::string, std::vector<ObjectInfo>> by_model;
  for (ObjectInfo& object : objects) {
    const size_t slash = object.key.find('/');
    if (slash == std::string::npos) continue;  // a file beside the models
    std::string name = object.key.substr(0, slash);
    if (!ValidModelName(name)) continue;       // hidden folders, as on disk
    by_model[name].push_back(std::move(object));
  }
  std::vector<Found> out;
  MutexLock lock(&mu_);
  for (auto& [name, model_objects] : by_model) {
    fs::path dir = mirror_->FolderFor(*root.store, name, model_objects);
    snapshots_[dir] = Snapshot{&root, name, model_objects};
    out.push_back({ModelLocation{name, dir, "", namespacing_ ? root.text : ""},
                   root.text + "/" + name});
  }
  return out;
}

StatusOr<std::vector<RepositorySource::Found>> RepositorySource::FromRoot(
    const Root& root, const std::string* name) const {
  if (root.store != nullptr) {
    if (name != nullptr && !ValidModelName(*name)) return std::vector<Found>{};
    ASSIGN_OR_RETURN(std::vector<ObjectInfo> objects,
                     root.store->List(name != nullptr ? *name + "/" : ""));
    return Group(root, std::move(objects));
  }
  const std::vector<fs::path> roots{root.local};
  ASSIGN_OR_RETURN(std::vector<ModelLocation> locations,
                   name != nullptr ? FindModelFolders(roots, *name, namespacing_)
                                   : ScanRepositories(roots, namespacing_));
  std::vector<Found> out;
  for (ModelLocation& location : locations) {
    std::string origin = location.dir.string();
    out.push_back({std::move(location), std::move(origin)});
  }
  return out;
}

StatusOr<std::vector<ModelLocation>> RepositorySource::Merge(const std::string* name) const {
  // By name, then namespace ("" without namespacing), as ScanRepositories.
  std::map<std::pair<std::string, std::string>, Found> merged;
  for (const Root& root : roots_) {
    ASSIGN_OR_RETURN(std::vector<Found> found, FromRoot(root, name));
    for (Found& entry : found) {
      const auto id = std::make_pair(entry.location.name, entry.location.ns);
      auto [it, inserted] = merged.try_emplace(id, entry);
      if (!inserted) {
        it->second.location.error = InSeveral(entry.location.name, it->second.origin, entry.origin);
      }
    }
  }
  std::vector<ModelLocation> out;
  out.reserve(merged.size());
  for (auto& [id, entry] : merged) out.push_back(std::move(entry.location));
  return out;
}

StatusOr<std::vector<ModelLocation>> RepositorySource::List() const { return Merge(nullptr); }

StatusOr<std::vector<ModelLocation>> RepositorySource::Find(const std::string& name) const {
  ASSIGN_OR_RETURN(std::vector<ModelLocation> found, Merge(&name));
  std::sort(found.begin(), found.end(),
            [](const ModelLocation& a, const ModelLocation& b) { return a.ns < b.ns; });
  return found;
}

ModelFingerprint RepositorySource::Fingerprint(const ModelLocation& location) const {
  MutexLock lock(&mu_);
  auto it = snapshots_.find(location.dir);
  if (it == snapshots_.end()) return FingerprintModel(location.dir);
  ModelFingerprint fingerprint;
  const std::string prefix = it->second.name + "/";
  for (const ObjectInfo& object : it->second.objects) {
    const std::string_view relative = std::string_view(object.key).substr(prefix.size());
    const int64_t version = VersionOf(relative.substr(0, relative.find('/')));
    uint64_t& hash = version > 0 && relative.find('/') != std::string_view::npos
                         ? fingerprint.versions[version]
                         : fingerprint.top;
    if (hash == 0) hash = 14695981039346656037ull;
    Mix(hash, relative);
    Mix(hash, object.version);
    Mix(hash, std::to_string(object.size));
  }
  return fingerprint;
}

void RepositorySource::MaterializeEach(const std::vector<ModelLocation>& locations,
                                       const Arrived& arrived) const {
  // Per store: the indexes into `locations` of its models, and their objects.
  std::map<const Root*, std::vector<size_t>> indexes;
  std::map<const Root*, std::vector<ModelMirror::ModelObjects>> models;
  std::vector<size_t> local;
  {
    MutexLock lock(&mu_);
    for (size_t i = 0; i < locations.size(); ++i) {
      auto it = snapshots_.find(locations[i].dir);
      if (it == snapshots_.end()) {
        local.push_back(i);
        continue;
      }
      indexes[it->second.root].push_back(i);
      models[it->second.root].push_back({it->second.name, it->second.objects});
      arriving_.insert(locations[i].dir);
    }
  }
  for (size_t i : local) arrived(i, Status::Ok());
  auto copy = [&](const Root* root) {
    mirror_->MaterializeEach(*root->store, models.at(root), [&](size_t j, Status status) {
      const size_t i = indexes.at(root)[j];
      {
        MutexLock lock(&mu_);
        arriving_.erase(arriving_.find(locations[i].dir));
      }
      arrived_.SignalAll();
      arrived(i, status.WithPrefix("model '" + locations[i].name + "': "));
    });
  };
  // Each store's models side by side (a store's own downloads are parallel).
  std::vector<std::thread> others;
  for (auto it = std::next(models.begin(), models.empty() ? 0 : 1); it != models.end(); ++it) {
    others.emplace_back(copy, it->first);
  }
  if (!models.empty()) copy(models.begin()->first);
  for (std::thread& thread : others) thread.join();
}

void RepositorySource::Release(const std::string& key) const {
  const std::string name = NameOfKey(key);
  for (const Root& root : roots_) {
    if (root.store != nullptr && ModelKey(namespacing_ ? root.text : "", name) == key) {
      mirror_->Release(*root.store, name);
    }
  }
}

Status RepositorySource::Materialize(const ModelLocation& location) const {
  Snapshot snapshot;
  {
    MutexLock lock(&mu_);
    // Being copied by MaterializeEach: that copy, not a second one.
    while (arriving_.count(location.dir) > 0) arrived_.Wait(&mu_);
    auto it = snapshots_.find(location.dir);
    if (it == snapshots_.end()) return Status::Ok();  // a local folder
    snapshot = it->second;
  }
  return mirror_->Materialize(*snapshot.root->store, snapshot.name, snapshot.objects)
      .WithPrefix("model '" + location.name + "': ");
}

}  // namespace inferd

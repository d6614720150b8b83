#include "core/repository/model_mirror.h"

#include <sys/stat.h>

#include <algorithm>
#include <random>

#include "core/cloud/crypto.h"
#include "core/common/logging.h"

namespace inferd {
namespace {

namespace fs = std::filesystem;

std::string ShortHash(std::string_view text, size_t hex_digits) {
  return HexEncode(Sha256(text)).substr(0, hex_digits);
}

// Whether `relative` (a key inside the model folder) stays inside it.
bool SafeRelativePath(const std::string& relative) {
  if (relative.empty() || relative.front() == '/') return false;
  size_t start = 0;
  while (start <= relative.size()) {
    size_t end = relative.find('/', start);
    if (end == std::string::npos) end = relative.size();
    const std::string_view segment(relative.data() + start, end - start);
    if (segment.empty() || segment == "." || segment == "..") return false;
    start = end + 1;
  }
  return true;
}

uint64_t TotalBytes(const fs::path& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    total += entry.file_size(ec);
  }
  return total;
}

// Objects no model folder links to any more.
void RemoveUnlinkedObjects(const fs::path& objects_dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(objects_dir, ec)) {
    // ".<name>.part-N" files are downloads in progress.
    if (entry.path().filename().string()[0] == '.') continue;
    if (entry.hard_link_count(ec) == 1) fs::remove(entry.path(), ec);
  }
}

void Touch(const fs::path& path) {
  std::error_code ec;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
}

std::string RandomName() {
  thread_local std::mt19937_64 generator{std::random_device{}()};
  return std::to_string(generator());
}

}  // namespace

ModelMirror::ModelMirror(MirrorOptions options) : options_(std::move(options)) {}

Status ModelMirror::Open() {
  std::error_code ec;
  fs::remove_all(options_.dir / "tmp", ec);
  for (const char* sub : {"objects", "models", "tmp"}) {
    fs::create_directories(options_.dir / sub, ec);
    if (ec) {
      return Status::InvalidArg("model repository cache '" + options_.dir.string() +
                                "' cannot be created: " + ec.message());
    }
  }
  return Status::Ok();
}

fs::path ModelMirror::FolderFor(const ObjectStore& store, const std::string& model,
                                const std::vector<ObjectInfo>& objects) const {
  std::string content;
  for (const ObjectInfo& object : objects) {
    content += object.key + '\n' + object.version + '\n' + std::to_string(object.size) + '\n';
  }
  return options_.dir / "models" / ShortHash(store.Url(), 16) / model / ShortHash(content, 24) /
         model;
}

fs::path ModelMirror::ObjectPath(const ObjectStore& store, const ObjectInfo& object) const {
  return options_.dir / "objects" /
         ShortHash(store.Url() + '\n' + object.key + '\n' + object.version, 40);
}

FetchStats ModelMirror::fetched() const {
  MutexLock lock(&mu_);
  return fetched_;
}

Status ModelMirror::FetchMissing(const ObjectStore& store, const std::vector<ObjectInfo>& objects,
                                 FetchStats* stats) {
  std::vector<FetchItem> missing;
  std::error_code ec;
  for (const ObjectInfo& object : objects) {
    fs::path path = ObjectPath(store, object);
    if (!fs::exists(path, ec)) missing.push_back({object, std::move(path)});
  }
  return FetchObjects(store, missing, options_.fetch, stats);
}

StatusOr<bool> ModelMirror::Assemble(const ObjectStore& store, const std::string& model,
                                     const std::vector<ObjectInfo>& objects,
                                     const fs::path& set_dir) {
  std::error_code ec;
  const fs::path staging = options_.dir / "tmp" / RandomName();
  const std::string prefix = model + "/";
  for (const ObjectInfo& object : objects) {
    const std::string relative = object.key.substr(prefix.size());
    const fs::path target = staging / model / relative;
    fs::create_directories(target.parent_path(), ec);
    fs::create_hard_link(ObjectPath(store, object), target, ec);
    if (ec && !fs::exists(ObjectPath(store, object))) {
      fs::remove_all(staging, ec);
      return false;
    }
    if (ec) fs::copy_file(ObjectPath(store, object), target, ec);  // no hard links here
    if (ec) {
      fs::remove_all(staging, ec);
      return Status::Internal("cannot place '" + target.string() + "': " + ec.message());
    }
  }
  fs::create_directories(staging / model, ec);  // a model of no object at all
  fs::create_directories(set_dir.parent_path(), ec);
  fs::rename(staging, set_dir, ec);
  if (ec) fs::remove_all(staging, ec);  // made meanwhile by another load: the same content
  return true;
}

Status ModelMirror::CheckKeys(const ObjectStore& store, const std::string& model,
                              const std::vector<ObjectInfo>& objects) {
  const std::string prefix = model + "/";
  for (const ObjectInfo& object : objects) {
    if (object.key.rfind(prefix, 0) != 0 || !SafeRelativePath(object.key.substr(prefix.size()))) {
      return Status::InvalidArg(store.Url() + ": object '" + object.key +
                                "' cannot be placed inside model folder '" + model + "'");
    }
  }
  return Status::Ok();
}

Status ModelMirror::Materialize(const ObjectStore& store, const std::string& model,
                                const std::vector<ObjectInfo>& objects) {
  RETURN_IF_ERROR(CheckKeys(store, model, objects));
  return Place(store, model, objects, {});
}

void ModelMirror::MaterializeEach(const ObjectStore& store,
                                  const std::vector<ModelObjects>& models,
                                  const std::function<void(size_t, Status)>& done) {
  // What the cache lacks, grouped by model; the rest is placed at once.
  std::vector<FetchItem> missing;
  std::vector<size_t> fetched;  // group -> index in `models`
  std::error_code ec;
  for (size_t i = 0; i < models.size(); ++i) {
    const ModelObjects& m = models[i];
    Status checked = CheckKeys(store, m.model, m.objects);
    if (!checked.ok()) {
      done(i, std::move(checked));
      continue;
    }
    const size_t before = missing.size();
    if (!fs::exists(FolderFor(store, m.model, m.objects).parent_path(), ec)) {
      for (const ObjectInfo& object : m.objects) {
        fs::path path = ObjectPath(store, object);
        if (!fs::exists(path, ec)) missing.push_back({object, std::move(path), fetched.size()});
      }
    }
    if (missing.size() == before) {
      done(i, Place(store, m.model, m.objects, {}));
    } else {
      fetched.push_back(i);
    }
  }
  FetchGroups(store, missing, fetched.size(), options_.fetch,
              [&](size_t group, Status status, const FetchStats& stats) {
                const ModelObjects& m = models[fetched[group]];
                done(fetched[group],
                     status.ok() ? Place(store, m.model, m.objects, stats) : std::move(status));
              });
}

Status ModelMirror::Place(const ObjectStore& store, const std::string& model,
                          const std::vector<ObjectInfo>& objects, FetchStats stats) {
  const fs::path set_dir = FolderFor(store, model, objects).parent_path();
  for (int attempt = 0;; ++attempt) {
    std::error_code ec;
    if (!fs::exists(set_dir, ec)) RETURN_IF_ERROR(FetchMissing(store, objects, &stats));
    MutexLock lock(&mu_);
    bool placed = fs::exists(set_dir, ec);
    if (!placed) {
      ASSIGN_OR_RETURN(placed, Assemble(store, model, objects, set_dir));
    }
    if (!placed && attempt < 3) continue;
    if (!placed) return Status::Unavailable(store.Url() + ": model '" + model + "' kept changing");
    Touch(set_dir);
    latest_[store.Url() + "/" + model] = set_dir;
    fetched_.objects += stats.objects;
    fetched_.bytes += stats.bytes;
    fetched_.requests += stats.requests;
    if (options_.byte_limit > 0) EvictOverLimit();
    break;
  }
  LOG_INFO("model '{}' from {}: {} of {} objects downloaded ({} bytes), the rest from the cache",
           model, store.Url(), stats.objects, objects.size(), stats.bytes);
  return Status::Ok();
}

void ModelMirror::Release(const ObjectStore& store, const std::string& model) {
  MutexLock lock(&mu_);
  if (latest_.erase(store.Url() + "/" + model) > 0 && options_.byte_limit > 0) EvictOverLimit();
}

void ModelMirror::EvictOverLimit() {
  const fs::path objects_dir = options_.dir / "objects";
  uint64_t total = TotalBytes(objects_dir);
  if (total <= options_.byte_limit) return;
  std::vector<std::pair<fs::file_time_type, fs::path>> candidates;
  std::error_code ec;
  for (const auto& store : fs::directory_iterator(options_.dir / "models", ec)) {
    for (const auto& model : fs::directory_iterator(store.path(), ec)) {
      for (const auto& set : fs::directory_iterator(model.path(), ec)) {
        const bool latest = std::any_of(latest_.begin(), latest_.end(),
                                        [&](const auto& entry) { return entry.second == set.path(); });
        if (!latest) candidates.emplace_back(set.last_write_time(ec), set.path());
      }
    }
  }
  std::sort(candidates.begin(), candidates.end());
  for (const auto& [time, set] : candidates) {
    if (total <= options_.byte_limit) break;
    fs::remove_all(set, ec);
    RemoveUnlinkedObjects(objects_dir);
    total = TotalBytes(objects_dir);
    LOG_VERBOSE(1, "model repository cache: removed {}", set.string());
  }
  if (total > options_.byte_limit) {
    LOG_WARNING("model repository cache '{}' holds {} bytes, over its limit of {}: the latest "
                "copy of each model is kept", options_.dir.string(), total, options_.byte_limit);
  }
}

}  // namespace inferd

// An in-memory ObjectStore for tests of what sits on stores (the model
// mirror, the repository source): objects by key with a version each,
// downloads counted per key, whole or by range.
#ifndef INFERD_CORE_TEST_UTIL_FAKE_OBJECT_STORE_H_
#define INFERD_CORE_TEST_UTIL_FAKE_OBJECT_STORE_H_

#include <fcntl.h>
#include <unistd.h>

#include <map>
#include <string>

#include "core/cloud/object_store.h"
#include "inferd/base/mutex.h"

namespace inferd {

class FakeObjectStore final : public ObjectStore {
 public:
  explicit FakeObjectStore(std::string url = "s3://fake/repo") : url_(std::move(url)) {}

  void Put(const std::string& key, const std::string& content) {
    MutexLock lock(&mu_);
    Object& object = objects_[key];
    object.content = content;
    object.version = "v" + std::to_string(++next_version_);
  }
  void Remove(const std::string& key) {
    MutexLock lock(&mu_);
    objects_.erase(key);
  }
  int downloads(const std::string& key) const {
    MutexLock lock(&mu_);
    auto it = downloads_.find(key);
    return it == downloads_.end() ? 0 : it->second;
  }
  int total_downloads() const {
    MutexLock lock(&mu_);
    int total = 0;
    for (const auto& [key, n] : downloads_) total += n;
    return total;
  }

  std::string Url() const override { return url_; }

  StatusOr<std::vector<ObjectInfo>> List(const std::string& prefix) const override {
    MutexLock lock(&mu_);
    std::vector<ObjectInfo> out;
    for (const auto& [key, object] : objects_) {
      if (key.rfind(prefix, 0) == 0) out.push_back({key, object.content.size(), object.version, {}});
    }
    return out;
  }

  Status Download(const ObjectInfo& info, const std::filesystem::path& dest,
                  std::optional<ByteRange> range) const override {
    std::string bytes;
    {
      MutexLock lock(&mu_);
      ++downloads_[info.key];
      auto it = objects_.find(info.key);
      if (it == objects_.end() || it->second.version != info.version) {
        return Status::NotFound(url_ + ": object '" + info.key + "' changed");
      }
      bytes = range ? it->second.content.substr(range->first, range->last - range->first + 1)
                    : it->second.content;
    }
    const int fd = ::open(dest.c_str(), O_WRONLY | O_CREAT | (range ? 0 : O_TRUNC), 0644);
    if (fd < 0) return Status::Internal("cannot open " + dest.string());
    const ssize_t n = ::pwrite(fd, bytes.data(), bytes.size(), range ? range->first : 0);
    ::close(fd);
    return n == static_cast<ssize_t>(bytes.size()) ? Status::Ok()
                                                   : Status::Internal("short write");
  }

 private:
  struct Object {
    std::string content;
    std::string version;
  };
  const std::string url_;
  mutable Mutex mu_;
  std::map<std::string, Object> objects_ GUARDED_BY(mu_);
  mutable std::map<std::string, int> downloads_ GUARDED_BY(mu_);
  int next_version_ GUARDED_BY(mu_) = 0;
};

}  // namespace inferd

#endif  // INFERD_CORE_TEST_UTIL_FAKE_OBJECT_STORE_H_

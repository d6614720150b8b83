#include "core/cloud/object_fetcher.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

#include "core/cloud/crypto.h"
#include "inferd/base/mutex.h"

namespace inferd {
namespace {

// One request: a whole object or one range of it, into item `item`'s temp file.
struct Transfer {
  size_t item = 0;
  std::optional<ByteRange> range;
};

std::filesystem::path TempPath(const std::filesystem::path& dest) {
  thread_local std::mt19937_64 generator{std::random_device{}()};
  return dest.parent_path() /
         ("." + dest.filename().string() + ".part-" + std::to_string(generator() % 1000000000));
}

std::vector<Transfer> PlanTransfers(const std::vector<FetchItem>& items, uint64_t range_bytes) {
  std::vector<Transfer> out;
  for (size_t i = 0; i < items.size(); ++i) {
    const uint64_t size = items[i].object.size;
    if (range_bytes == 0 || size <= range_bytes) {
      out.push_back({i, std::nullopt});
      continue;
    }
    for (uint64_t first = 0; first < size; first += range_bytes) {
      out.push_back({i, ByteRange{first, std::min(size, first + range_bytes) - 1}});
    }
  }
  // Large objects' ranges first, so that the longest work starts earliest.
  std::stable_sort(out.begin(), out.end(), [&](const Transfer& a, const Transfer& b) {
    return items[a.item].object.size > items[b.item].object.size;
  });
  return out;
}

// Creates each ranged item's temp file at its full size, so ranges can be written into it.
Status CreateRangedFiles(const std::vector<FetchItem>& items,
                         const std::vector<std::filesystem::path>& temps, uint64_t range_bytes) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (range_bytes == 0 || items[i].object.size <= range_bytes) continue;
    const int fd = ::open(temps[i].c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(items[i].object.size)) != 0) {
      if (fd >= 0) ::close(fd);
      return Status::Internal("cannot create '" + temps[i].string() + "'");
    }
    ::close(fd);
  }
  return Status::Ok();
}

// Size always; the MD5 only of an object fetched in ranges (a whole object's
// bytes were hashed by the store's Download as they arrived).
Status Verify(const ObjectStore& store, const FetchItem& item, const std::filesystem::path& temp,
              bool ranged) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(temp, ec);
  if (ec || size != item.object.size) {
    return Status::Unavailable(store.Url() + ": object '" + item.object.key + "': received " +
                               std::to_string(ec ? 0 : size) + " of " +
                               std::to_string(item.object.size) + " bytes");
  }
  if (!ranged || item.object.md5_hex.empty()) return Status::Ok();
  ASSIGN_OR_RETURN(std::string md5, Md5HexOfFile(temp));
  if (md5 != item.object.md5_hex) {
    return Status::Unavailable(store.Url() + ": object '" + item.object.key +
                               "': content does not match its MD5 (" + item.object.md5_hex +
                               ", received " + md5 + ")");
  }
  return Status::Ok();
}

class FetchRun {
 public:
  FetchRun(const ObjectStore& store, const std::vector<FetchItem>& items,
           const FetchOptions& options)
      : store_(store), items_(items), options_(options),
        transfers_(PlanTransfers(items, options.range_bytes)), remaining_(items.size()) {
    for (const FetchItem& item : items) temps_.push_back(TempPath(item.dest));
    for (size_t i = 0; i < items.size(); ++i) remaining_[i] = 0;
    for (const Transfer& t : transfers_) ++remaining_[t.item];
  }

  Status Run(FetchStats* stats) {
    Status status = CreateRangedFiles(items_, temps_, options_.range_bytes);
    if (status.ok()) {
      const size_t threads = std::min<size_t>(std::max(1, options_.parallel), transfers_.size());
      std::vector<std::thread> workers;
      for (size_t t = 1; t < threads; ++t) workers.emplace_back([this] { Work(); });
      Work();
      for (std::thread& worker : workers) worker.join();
      MutexLock lock(&mu_);
      status = error_;
    }
    if (!status.ok()) {
      std::error_code ec;
      for (const auto& temp : temps_) std::filesystem::remove(temp, ec);
      return status;
    }
    if (stats != nullptr) {
      stats->objects += items_.size();
      stats->requests += transfers_.size();
      for (const FetchItem& item : items_) stats->bytes += item.object.size;
    }
    return Status::Ok();
  }

 private:
  void Work() {
    for (size_t i = next_++; i < transfers_.size() && !failed_.load(); i = next_++) {
      const Transfer& t = transfers_[i];
      Status status = store_.Download(items_[t.item].object, temps_[t.item], t.range);
      if (status.ok() && --remaining_[t.item] == 0) status = Finish(t.item);
      if (!status.ok()) Fail(std::move(status));
    }
  }

  Status Finish(size_t item) {
    const bool ranged = options_.range_bytes > 0 && items_[item].object.size > options_.range_bytes;
    RETURN_IF_ERROR(Verify(store_, items_[item], temps_[item], ranged));
    std::error_code ec;
    std::filesystem::rename(temps_[item], items_[item].dest, ec);
    if (ec) return Status::Internal("cannot rename '" + temps_[item].string() + "': " + ec.message());
    return Status::Ok();
  }

  void Fail(Status status) {
    MutexLock lock(&mu_);
    if (error_.ok()) error_ = std::move(status);
    failed_.store(true);
  }

  const ObjectStore& store_;
  const std::vector<FetchItem>& items_;
  const FetchOptions options_;
  const std::vector<Transfer> transfers_;
  std::vector<std::filesystem::path> temps_;
  std::vector<std::atomic<size_t>> remaining_;  // transfers left per item
  std::atomic<size_t> next_{0};
  std::atomic<bool> failed_{false};
  Mutex mu_;
  Status error_ GUARDED_BY(mu_);
};

}  // namespace

Status FetchObjects(const ObjectStore& store, const std::vector<FetchItem>& items,
                    const FetchOptions& options, FetchStats* stats) {
  if (items.empty()) return Status::Ok();
  FetchRun run(store, items, options);
  return run.Run(stats);
}

}  // namespace inferd

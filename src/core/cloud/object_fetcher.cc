#include "core/cloud/object_fetcher.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <thread>

#include "core/cloud/checksum.h"
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

std::vector<Transfer> PlanTransfers(const std::vector<FetchItem>& items, uint64_t range_bytes,
                                    const std::vector<size_t>& group_of) {
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
  // Group by group; in each, large objects' ranges first, so that the longest
  // work starts earliest.
  std::stable_sort(out.begin(), out.end(), [&](const Transfer& a, const Transfer& b) {
    if (group_of[a.item] != group_of[b.item]) return group_of[a.item] < group_of[b.item];
    return items[a.item].object.size > items[b.item].object.size;
  });
  return out;
}

// Creates a ranged item's temp file at its full size, so ranges can be written into it.
Status CreateRangedFile(const FetchItem& item, const std::filesystem::path& temp) {
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(item.object.size)) != 0) {
    if (fd >= 0) ::close(fd);
    return Status::Internal("cannot create '" + temp.string() + "'");
  }
  ::close(fd);
  return Status::Ok();
}

// Size always; the checksum only of an object fetched in ranges (a whole
// object's bytes were hashed by the store's Download as they arrived).
Status Verify(const ObjectStore& store, const FetchItem& item, const std::filesystem::path& temp,
              bool ranged) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(temp, ec);
  if (ec || size != item.object.size) {
    return Status::Unavailable(store.Url() + ": object '" + item.object.key + "': received " +
                               std::to_string(ec ? 0 : size) + " of " +
                               std::to_string(item.object.size) + " bytes");
  }
  if (!ranged) return Status::Ok();
  ASSIGN_OR_RETURN(const ContentChecksum expected, store.WholeChecksum(item.object));
  if (expected.empty()) return Status::Ok();
  ASSIGN_OR_RETURN(const ContentChecksum received, ChecksumOfFile(expected.kind, temp));
  if (received == expected) return Status::Ok();
  return ChecksumMismatch(store.Url() + ": object '" + item.object.key + "'", expected, received);
}

class FetchRun {
 public:
  // `groups` 0: every item is of one group, whatever its `group` says.
  FetchRun(const ObjectStore& store, const std::vector<FetchItem>& items, size_t groups,
           const FetchOptions& options)
      : store_(store), items_(items), options_(options), group_of_(GroupsOf(items, groups)),
        transfers_(PlanTransfers(items, options.range_bytes, group_of_)),
        remaining_(items.size()), groups_(std::max<size_t>(groups, 1)) {
    for (const FetchItem& item : items) temps_.push_back(TempPath(item.dest));
    for (size_t i = 0; i < items.size(); ++i) remaining_[i] = 0;
    for (const Transfer& t : transfers_) {
      ++remaining_[t.item];
      ++groups_[group_of_[t.item]].pending;
      ++groups_[group_of_[t.item]].requests;
    }
    for (size_t i = 0; i < items.size(); ++i) groups_[group_of_[i]].items.push_back(i);
  }

  void Run(const GroupDone& done) {
    done_ = &done;
    for (size_t g = 0; g < groups_.size(); ++g) {
      if (groups_[g].pending == 0) done(g, Status::Ok(), {});
    }
    for (size_t i = 0; i < items_.size(); ++i) {
      if (Ranged(i)) {
        Status created = CreateRangedFile(items_[i], temps_[i]);
        if (!created.ok()) Fail(group_of_[i], std::move(created));
      }
    }
    const size_t threads = std::min<size_t>(std::max(1, options_.parallel), transfers_.size());
    std::vector<std::thread> workers;
    for (size_t t = 1; t < threads; ++t) workers.emplace_back([this] { Work(); });
    Work();
    for (std::thread& worker : workers) worker.join();
  }

 private:
  struct Group {
    std::vector<size_t> items;
    size_t requests = 0;             // its transfers
    std::atomic<size_t> pending{0};  // of those, not yet done or skipped
    std::atomic<bool> failed{false};
    Status error;  // the first; guarded by mu_ (set before `failed`)
  };

  static std::vector<size_t> GroupsOf(const std::vector<FetchItem>& items, size_t groups) {
    std::vector<size_t> group_of;
    for (const FetchItem& item : items) group_of.push_back(groups == 0 ? 0 : item.group);
    return group_of;
  }

  bool Ranged(size_t item) const {
    return options_.range_bytes > 0 && items_[item].object.size > options_.range_bytes;
  }

  void Work() {
    for (size_t i = next_++; i < transfers_.size(); i = next_++) {
      const Transfer& t = transfers_[i];
      const size_t g = group_of_[t.item];
      if (!groups_[g].failed.load()) {
        Status status = store_.Download(items_[t.item].object, temps_[t.item], t.range);
        if (status.ok() && --remaining_[t.item] == 0) status = Finish(t.item);
        if (!status.ok()) Fail(g, std::move(status));
      }
      if (--groups_[g].pending == 0) Complete(g);
    }
  }

  Status Finish(size_t item) {
    RETURN_IF_ERROR(Verify(store_, items_[item], temps_[item], Ranged(item)));
    std::error_code ec;
    std::filesystem::rename(temps_[item], items_[item].dest, ec);
    if (ec) return Status::Internal("cannot rename '" + temps_[item].string() + "': " + ec.message());
    return Status::Ok();
  }

  void Fail(size_t g, Status status) {
    MutexLock lock(&mu_);
    if (groups_[g].error.ok()) groups_[g].error = std::move(status);
    groups_[g].failed.store(true);
  }

  // Every transfer of group `g` is done or skipped.
  void Complete(size_t g) {
    Group& group = groups_[g];
    Status status;
    {
      MutexLock lock(&mu_);
      status = group.error;
    }
    FetchStats stats;
    if (!status.ok()) {
      std::error_code ec;
      for (size_t item : group.items) std::filesystem::remove(temps_[item], ec);
    } else {
      for (size_t item : group.items) {
        ++stats.objects;
        stats.bytes += items_[item].object.size;
      }
      stats.requests = group.requests;
    }
    (*done_)(g, std::move(status), stats);
  }

  const ObjectStore& store_;
  const std::vector<FetchItem>& items_;
  const FetchOptions options_;
  const std::vector<size_t> group_of_;
  const std::vector<Transfer> transfers_;
  std::vector<std::filesystem::path> temps_;
  std::vector<std::atomic<size_t>> remaining_;  // transfers left per item
  std::vector<Group> groups_;
  std::atomic<size_t> next_{0};
  const GroupDone* done_ = nullptr;
  Mutex mu_;
};

}  // namespace

Status FetchObjects(const ObjectStore& store, const std::vector<FetchItem>& items,
                    const FetchOptions& options, FetchStats* stats) {
  if (items.empty()) return Status::Ok();
  Status outcome;
  FetchRun(store, items, 0, options).Run([&](size_t, Status status, const FetchStats& fetched) {
    outcome = std::move(status);
    if (stats != nullptr && outcome.ok()) {
      stats->objects += fetched.objects;
      stats->bytes += fetched.bytes;
      stats->requests += fetched.requests;
    }
  });
  return outcome;
}

void FetchGroups(const ObjectStore& store, const std::vector<FetchItem>& items, size_t groups,
                 const FetchOptions& options, const GroupDone& done) {
  if (groups == 0) return;
  FetchRun(store, items, groups, options).Run(done);
}

}  // namespace inferd

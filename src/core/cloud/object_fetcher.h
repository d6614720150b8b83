// Copies a set of objects from a store into local files, fast and safely:
// many objects at once (FetchOptions::parallel transfers in flight), each
// object larger than `range_bytes` split into ranges fetched side by side,
// each file written under a temporary name next to its destination and
// renamed into place only once whole and verified (its size, and its MD5
// where the store states one: hashed by the store as a whole object arrives,
// read back once for an object fetched in ranges), so a destination is
// either absent or right.
// On failure the first error comes back and no temporary file remains.
// FetchGroups does the same for many sets of objects (the models of a
// repository) that succeed or fail apart, each reported as soon as it is done.
#ifndef INFERD_CORE_CLOUD_OBJECT_FETCHER_H_
#define INFERD_CORE_CLOUD_OBJECT_FETCHER_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

#include "core/cloud/object_store.h"
#include "inferd/base/status.h"

namespace inferd {

struct FetchOptions {
  int parallel = 16;                      // transfers in flight at once
  uint64_t range_bytes = 32ull << 20;     // objects above this go in ranges of this size
};

struct FetchItem {
  ObjectInfo object;
  std::filesystem::path dest;
  size_t group = 0;  // FetchGroups: which set it belongs to
};

struct FetchStats {
  uint64_t objects = 0;
  uint64_t bytes = 0;
  uint64_t requests = 0;  // ranges and whole objects
};

// Fetches every item; `stats` (may be null) counts what was fetched.
Status FetchObjects(const ObjectStore& store, const std::vector<FetchItem>& items,
                    const FetchOptions& options, FetchStats* stats);

// One group's outcome: its first error, or what it fetched.
using GroupDone = std::function<void(size_t group, Status status, const FetchStats& stats)>;

// Fetches the items of groups 0 .. `groups` - 1 with `options.parallel`
// transfers in flight across all of them, lower groups first (so the first
// groups finish first rather than all at the end). A failure fails its own
// group only: its other transfers are skipped and its temporary files
// removed. `done` is called once for every group, as soon as its last item is
// in place (a group of no item: at once), from the thread that finished it;
// FetchGroups returns after the last call.
void FetchGroups(const ObjectStore& store, const std::vector<FetchItem>& items, size_t groups,
                 const FetchOptions& options, const GroupDone& done);

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_OBJECT_FETCHER_H_

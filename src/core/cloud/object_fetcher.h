// Copies a set of objects from a store into local files, fast and safely:
// many objects at once (FetchOptions::parallel transfers in flight), each
// object larger than `range_bytes` split into ranges fetched side by side,
// each file written under a temporary name next to its destination and
// renamed into place only once whole and verified (its size, and its MD5
// where the store states one: hashed by the store as a whole object arrives,
// read back once for an object fetched in ranges), so a destination is
// either absent or right.
// On failure the first error comes back and no temporary file remains.
#ifndef INFERD_CORE_CLOUD_OBJECT_FETCHER_H_
#define INFERD_CORE_CLOUD_OBJECT_FETCHER_H_

#include <cstdint>
#include <filesystem>
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
};

struct FetchStats {
  uint64_t objects = 0;
  uint64_t bytes = 0;
  uint64_t requests = 0;  // ranges and whole objects
};

// Fetches every item; `stats` (may be null) counts what was fetched.
Status FetchObjects(const ObjectStore& store, const std::vector<FetchItem>& items,
                    const FetchOptions& options, FetchStats* stats);

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_OBJECT_FETCHER_H_

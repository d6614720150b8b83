// The system shared memory extension's registry: regions a client created
// (shm_open + ftruncate) and registered by name, mapped into this process so
// infer requests can read inputs from them and have outputs written into them
// with no copy. One registry serves every frontend of a process (a region
// registered over HTTP is usable over gRPC), as in Triton.
//
// A region stays mapped while any request holds it: unregistering only
// removes the name, so a request in flight never loses its memory.
// Thread-safe: lookups read an immutable snapshot (one atomic load); register
// and unregister, which are rare, swap in a new snapshot under a mutex.
#ifndef INFERD_FRONTENDS_COMMON_SHARED_MEMORY_REGISTRY_H_
#define INFERD_FRONTENDS_COMMON_SHARED_MEMORY_REGISTRY_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inferd/base/mutex.h"
#include "inferd/base/status.h"
#include "inferd/base/thread_annotations.h"

namespace inferd {

// One registered region: `byte_size` bytes at `offset` of the object `key`.
class SharedMemoryRegion {
 public:
  // Maps the region; INVALID_ARG naming it when the key cannot be opened or
  // mapped, or holds fewer than offset + byte_size bytes.
  static StatusOr<std::shared_ptr<const SharedMemoryRegion>> Map(const std::string& name,
                                                                 const std::string& key,
                                                                 uint64_t offset,
                                                                 uint64_t byte_size);
  ~SharedMemoryRegion();
  SharedMemoryRegion(const SharedMemoryRegion&) = delete;
  SharedMemoryRegion& operator=(const SharedMemoryRegion&) = delete;

  const std::string& name() const { return name_; }
  const std::string& key() const { return key_; }
  uint64_t offset() const { return offset_; }
  uint64_t byte_size() const { return byte_size_; }
  // The region's first byte (the object's byte at offset()).
  char* data() const { return mapping_ + offset_; }

 private:
  SharedMemoryRegion(std::string name, std::string key, uint64_t offset, uint64_t byte_size,
                     char* mapping);

  std::string name_;
  std::string key_;
  uint64_t offset_;
  uint64_t byte_size_;
  char* mapping_;  // the object's bytes [0, offset + byte_size)
};

// A tensor's bytes inside a region; holds the region mapped.
struct SharedMemorySlice {
  std::shared_ptr<const SharedMemoryRegion> region;
  char* data = nullptr;
  size_t byte_size = 0;
  uint64_t offset = 0;  // within the region, as the request gave it
};

class SharedMemoryRegistry {
 public:
  SharedMemoryRegistry();
  ~SharedMemoryRegistry();
  SharedMemoryRegistry(const SharedMemoryRegistry&) = delete;
  SharedMemoryRegistry& operator=(const SharedMemoryRegistry&) = delete;

  // Maps and registers a region. ALREADY_EXISTS for a name in use;
  // INVALID_ARG for a key that cannot be opened or is smaller than
  // offset + byte_size.
  Status Register(const std::string& name, const std::string& key, uint64_t offset,
                  uint64_t byte_size) EXCLUDES(mu_);

  // Removes `name` (every region when empty). Unknown names are no error.
  Status Unregister(const std::string& name) EXCLUDES(mu_);

  // The regions named `name` (every one when empty), sorted by name;
  // NOT_FOUND for a name that is not registered.
  Status List(const std::string& name,
              std::vector<std::shared_ptr<const SharedMemoryRegion>>* regions) const;

  // `byte_size` bytes at `offset` of region `name`, for the tensor `what`
  // ("input 'x'"). INVALID_ARG when the region is unknown or too small.
  Status Slice(const std::string& name, uint64_t offset, uint64_t byte_size,
               const std::string& what, SharedMemorySlice* slice) const;

 private:
  using Table = std::map<std::string, std::shared_ptr<const SharedMemoryRegion>, std::less<>>;

  std::shared_ptr<const Table> Snapshot() const { return table_.load(std::memory_order_acquire); }

  // Serializes writers, each of which loads table_, copies it and stores the
  // copy. Readers never take it, so table_ is atomic rather than GUARDED_BY.
  Mutex mu_;
  std::atomic<std::shared_ptr<const Table>> table_;
};

}  // namespace inferd

#endif  // INFERD_FRONTENDS_COMMON_SHARED_MEMORY_REGISTRY_H_

// The shared memory one model instance and its stub both map: a memfd (no
// name in /dev/shm to leak when the server is killed) in three parts:
//   [0, 64)                 header: the ring's consumed position (u64 at 0),
//                           written by the backend, read by the stub; the
//                           ring's offset (u64 at 8) and size (u64 at 16)
//   [64, 64 + request)      the backend's blocks of requests (ShmAllocator)
//   [.., + ring)            the stub's ring of responses (ResponseRing)
// The stub inherits the descriptor and maps the same bytes; pages are only
// backed by memory once touched. Not thread-safe to create or destroy;
// readers and writers of the parts follow the rules of their owners.
#ifndef INFERD_BACKENDS_PYTHON_SHM_REGION_H_
#define INFERD_BACKENDS_PYTHON_SHM_REGION_H_

#include <atomic>
#include <cstdint>
#include <string>

#include "inferd/base/status.h"

namespace inferd::python {

class ShmRegion {
 public:
  static constexpr uint64_t kHeaderSize = 64;

  ShmRegion() = default;
  ~ShmRegion();
  ShmRegion(const ShmRegion&) = delete;
  ShmRegion& operator=(const ShmRegion&) = delete;

  // Creates and maps a region of the two sizes (each rounded up to a page).
  // `name` shows in /proc/<pid>/fd (debugging only).
  Status Create(const std::string& name, uint64_t request_bytes, uint64_t ring_bytes);

  char* base() const { return base_; }
  int fd() const { return fd_; }
  uint64_t size() const { return kHeaderSize + request_bytes_ + ring_bytes_; }
  uint64_t request_begin() const { return kHeaderSize; }
  uint64_t request_bytes() const { return request_bytes_; }
  uint64_t ring_begin() const { return kHeaderSize + request_bytes_; }
  uint64_t ring_bytes() const { return ring_bytes_; }
  // The ring's consumed position, published to the stub.
  std::atomic<uint64_t>& ring_consumed() const {
    return *reinterpret_cast<std::atomic<uint64_t>*>(base_);
  }

 private:
  int fd_ = -1;
  char* base_ = nullptr;
  uint64_t request_bytes_ = 0;
  uint64_t ring_bytes_ = 0;
};

}  // namespace inferd::python

#endif  // INFERD_BACKENDS_PYTHON_SHM_REGION_H_

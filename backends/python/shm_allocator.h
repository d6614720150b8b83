// A first-fit allocator of offsets inside a fixed span of a shared memory
// region: the backend places each batch of requests it hands to a Python stub
// here, and frees it when the stub has answered every request of the batch.
// It hands out offsets, never touches the memory, so it is tested alone.
// Not thread-safe; guarded by the owning instance's mu_.
#ifndef INFERD_BACKENDS_PYTHON_SHM_ALLOCATOR_H_
#define INFERD_BACKENDS_PYTHON_SHM_ALLOCATOR_H_

#include <cstdint>
#include <map>
#include <optional>

namespace inferd::python {

class ShmAllocator {
 public:
  // Blocks are aligned to this many bytes, so numpy views of tensors in them
  // are aligned for every datatype (and for SIMD loads).
  static constexpr uint64_t kAlignment = 64;

  // Manages [begin, begin + size); begin must be aligned.
  ShmAllocator(uint64_t begin, uint64_t size);
  ShmAllocator(const ShmAllocator&) = delete;
  ShmAllocator& operator=(const ShmAllocator&) = delete;

  // The offset of a new block of at least `size` bytes (0 is served as 1), or
  // nullopt when no free span is large enough.
  std::optional<uint64_t> Allocate(uint64_t size);
  // Returns a block that Allocate gave; false (and nothing changes) for an
  // offset that is not the start of a live block.
  bool Free(uint64_t offset);
  // Forgets every block (the stub that used them is gone).
  void Reset();

  uint64_t capacity() const { return size_; }
  uint64_t bytes_in_use() const { return in_use_; }
  size_t blocks_in_use() const { return used_.size(); }
  // The largest block Allocate could serve now.
  uint64_t largest_free() const;

 private:
  const uint64_t begin_;
  const uint64_t size_;
  std::map<uint64_t, uint64_t> free_;  // offset -> size, coalesced
  std::map<uint64_t, uint64_t> used_;  // offset -> size
  uint64_t in_use_ = 0;
};

}  // namespace inferd::python

#endif  // INFERD_BACKENDS_PYTHON_SHM_ALLOCATOR_H_

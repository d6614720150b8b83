// An allocator for traces that keeps freed blocks on a lock-free free list
// (bounded_queue.h) instead of returning them to malloc. A trace is
// allocated on the thread that takes its request and is mostly freed on the
// model instance's: malloc's per-thread caches then serve neither side, and
// each trace cost its arena's slow paths on both (about 350 instructions).
// Use with std::allocate_shared, which allocates one block of one type.
// Thread-safe.
#ifndef INFERD_CORE_TRACE_TRACE_POOL_H_
#define INFERD_CORE_TRACE_TRACE_POOL_H_

#include <cstddef>
#include <memory>

#include "core/trace/bounded_queue.h"

namespace inferd {

template <typename T>
class TracePoolAllocator {
 public:
  using value_type = T;
  // Blocks kept for reuse at most, per type: more than traces in flight.
  static constexpr size_t kKept = 1024;

  TracePoolAllocator() = default;
  // Implicit, as allocators' rebinding conversions are.
  template <typename U>
  TracePoolAllocator(const TracePoolAllocator<U>& /*other*/) {}  // NOLINT

  T* allocate(size_t n) {
    if (n == 1) {
      if (void* block = Blocks().Pop()) return static_cast<T*>(block);
    }
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* block, size_t n) {
    if (n == 1 && Blocks().Push(block)) return;
    std::allocator<T>().deallocate(block, n);
  }
  template <typename U>
  bool operator==(const TracePoolAllocator<U>& /*other*/) const {
    return true;
  }

 private:
  static BoundedQueue<void>& Blocks() {
    // Never destroyed: blocks may be freed while the process exits, and the
    // kept ones stay reachable (no leak to report).
    static auto* blocks = new BoundedQueue<void>(kKept);
    return *blocks;
  }
};

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_TRACE_POOL_H_

// A bounded queue of pointers, safe for any number of producers and
// consumers without a lock: Dmitry Vyukov's bounded MPMC queue (each slot's
// sequence number says whether it holds a value of the current lap). A push
// or pop is one compare-and-swap on its end plus one store; nothing is
// allocated after construction. Pop may find the queue empty while a push
// that claimed the oldest slot has not stored its value yet.
// Thread-safe.
#ifndef INFERD_CORE_TRACE_BOUNDED_QUEUE_H_
#define INFERD_CORE_TRACE_BOUNDED_QUEUE_H_

#include <atomic>
#include <bit>
#include <cstddef>
#include <memory>

namespace inferd {

template <typename T>
class BoundedQueue {
 public:
  // Room for `capacity` pointers at least (rounded up to a power of two).
  explicit BoundedQueue(size_t capacity)
      : mask_(std::bit_ceil(capacity < 2 ? size_t{2} : capacity) - 1),
        slots_(std::make_unique<Slot[]>(mask_ + 1)) {
    for (size_t i = 0; i <= mask_; ++i) slots_[i].sequence.store(i, std::memory_order_relaxed);
  }
  BoundedQueue(const BoundedQueue&) = delete;
  BoundedQueue& operator=(const BoundedQueue&) = delete;

  // False when full.
  bool Push(T* value) {
    size_t position = tail_.load(std::memory_order_relaxed);
    for (;;) {
      Slot& slot = slots_[position & mask_];
      const size_t sequence = slot.sequence.load(std::memory_order_acquire);
      const auto lap = static_cast<std::ptrdiff_t>(sequence - position);
      if (lap == 0) {
        if (tail_.compare_exchange_weak(position, position + 1, std::memory_order_relaxed)) {
          slot.value = value;
          slot.sequence.store(position + 1, std::memory_order_release);
          return true;
        }
      } else if (lap < 0) {
        return false;  // the slot still holds last lap's value
      } else {
        position = tail_.load(std::memory_order_relaxed);
      }
    }
  }

  // Null when empty.
  T* Pop() {
    size_t position = head_.load(std::memory_order_relaxed);
    for (;;) {
      Slot& slot = slots_[position & mask_];
      const size_t sequence = slot.sequence.load(std::memory_order_acquire);
      const auto lap = static_cast<std::ptrdiff_t>(sequence - (position + 1));
      if (lap == 0) {
        if (head_.compare_exchange_weak(position, position + 1, std::memory_order_relaxed)) {
          T* value = slot.value;
          slot.sequence.store(position + mask_ + 1, std::memory_order_release);
          return value;
        }
      } else if (lap < 0) {
        return nullptr;
      } else {
        position = head_.load(std::memory_order_relaxed);
      }
    }
  }

 private:
  struct Slot {
    std::atomic<size_t> sequence{0};
    T* value = nullptr;
  };

  const size_t mask_;
  const std::unique_ptr<Slot[]> slots_;
  alignas(64) std::atomic<size_t> tail_{0};
  alignas(64) std::atomic<size_t> head_{0};
};

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_BOUNDED_QUEUE_H_

#include "shm_allocator.h"

#include <algorithm>
#include <iterator>

namespace inferd::python {

namespace {
uint64_t RoundUp(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }
}  // namespace

ShmAllocator::ShmAllocator(uint64_t begin, uint64_t size)
    : begin_(begin), size_(size / kAlignment * kAlignment) {
  Reset();
}

void ShmAllocator::Reset() {
  free_.clear();
  used_.clear();
  in_use_ = 0;
  if (size_ > 0) free_[begin_] = size_;
}

std::optional<uint64_t> ShmAllocator::Allocate(uint64_t size) {
  const uint64_t want = RoundUp(std::max<uint64_t>(size, 1), kAlignment);
  // First fit keeps low offsets busy and the tail free for large batches.
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < want) continue;
    const uint64_t offset = it->first;
    const uint64_t rest = it->second - want;
    free_.erase(it);
    if (rest > 0) free_[offset + want] = rest;
    used_[offset] = want;
    in_use_ += want;
    return offset;
  }
  return std::nullopt;
}

bool ShmAllocator::Free(uint64_t offset) {
  auto used = used_.find(offset);
  if (used == used_.end()) return false;
  uint64_t start = offset;
  uint64_t size = used->second;
  in_use_ -= size;
  used_.erase(used);
  auto next = free_.lower_bound(start);
  if (next != free_.end() && start + size == next->first) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      size += prev->second;
      free_.erase(prev);
    }
  }
  free_[start] = size;
  return true;
}

uint64_t ShmAllocator::largest_free() const {
  uint64_t largest = 0;
  for (const auto& [offset, size] : free_) largest = std::max(largest, size);
  return largest;
}

}  // namespace inferd::python

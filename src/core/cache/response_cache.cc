#include "core/cache/response_cache.h"

#include <functional>

namespace inferd {

namespace {

// Bookkeeping charged to every entry beside its bytes: list and map nodes,
// the response object, and per output its name and shape vectors.
constexpr uint64_t kEntryOverhead = 160;
constexpr uint64_t kOutputOverhead = 96;

uint64_t StdHash(std::string_view bytes) { return std::hash<std::string_view>()(bytes); }

}  // namespace

ResponseCache::ResponseCache(uint64_t byte_budget, HashFn hash)
    : byte_budget_(byte_budget),
      hash_(hash != nullptr ? hash : &StdHash) {}

void ResponseCache::FillHash(const CacheKey& key) const {
  key.hash = hash_(key.bytes) ^ (key.owner * 0x9e3779b97f4a7c15ULL);
}

uint64_t ResponseCache::EntrySize(const CacheKey& key, const CachedResponse& response) {
  uint64_t size = kEntryOverhead + key.bytes.size();
  for (const CachedOutput& output : response.outputs) {
    size += kOutputOverhead + output.name.size() + output.shape.size() * sizeof(int64_t) +
            output.data.size();
  }
  return size;
}

std::shared_ptr<const CachedResponse> ResponseCache::Lookup(const CacheKey& key) {
  lookups_.fetch_add(1, std::memory_order_relaxed);
  FillHash(key);
  MutexLock lock(&mu_);
  auto found = index_.find(&key);
  if (found == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, found->second);
  hits_.fetch_add(1, std::memory_order_relaxed);
  return found->second->response;
}

bool ResponseCache::Insert(CacheKey key, CachedResponse response) {
  const uint64_t size = EntrySize(key, response);
  if (size > byte_budget_) return false;
  // Built outside the lock; only linking it in is guarded.
  FillHash(key);
  Lru node;
  node.push_back(Entry{std::move(key),
                       std::make_shared<const CachedResponse>(std::move(response)), size});
  std::vector<std::shared_ptr<const CachedResponse>> evicted;
  MutexLock lock(&mu_);
  if (index_.contains(&node.front().key)) return true;
  while (bytes_ + size > byte_budget_ && !lru_.empty()) {
    evicted.push_back(lru_.back().response);
    Erase(std::prev(lru_.end()));
    ++evictions_;
  }
  lru_.splice(lru_.begin(), node);
  index_.emplace(&lru_.front().key, lru_.begin());
  bytes_ += size;
  return true;
}

void ResponseCache::Erase(Lru::iterator it) {
  index_.erase(&it->key);
  bytes_ -= it->size;
  lru_.erase(it);
}

void ResponseCache::RemoveOwner(uint64_t owner) {
  Lru removed;  // freed after the lock
  MutexLock lock(&mu_);
  for (auto it = lru_.begin(); it != lru_.end();) {
    auto next = std::next(it);
    if (it->key.owner == owner) {
      index_.erase(&it->key);
      bytes_ -= it->size;
      removed.splice(removed.end(), lru_, it);
    }
    it = next;
  }
}

ResponseCacheStats ResponseCache::Stats() const {
  ResponseCacheStats stats;
  stats.lookups = lookups_.load(std::memory_order_relaxed);
  stats.hits = hits_.load(std::memory_order_relaxed);
  stats.misses = stats.lookups >= stats.hits ? stats.lookups - stats.hits : 0;
  MutexLock lock(&mu_);
  stats.entries = lru_.size();
  stats.bytes = bytes_;
  stats.evictions = evictions_;
  return stats;
}

}  // namespace inferd

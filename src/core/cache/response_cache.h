// The response cache (model config `response_cache { enable: true }`, server
// flag --cache-config local,size=N): complete, successful responses of a model
// kept in memory under a byte budget, least recently used first out. A key
// holds the model's identity and the request's inputs and requested outputs
// as bytes; lookup hashes them and then compares the bytes, so two requests
// share an entry only when their keys are equal. Thread-safe: one lock, held
// only to find, link or unlink entries (never while building or copying them).
#ifndef INFERD_CORE_CACHE_RESPONSE_CACHE_H_
#define INFERD_CORE_CACHE_RESPONSE_CACHE_H_

#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "inferd/base/mutex.h"
#include "inferd/server.h"

namespace inferd {

// What a request is cached under. `owner` names the loaded model version
// (unique per load), so entries never outlive or cross loads.
struct CacheKey {
  uint64_t owner = 0;
  std::string bytes;
  // The hash of owner and bytes: the cache fills it in before it locks, so
  // that a large key is never hashed under the lock.
  mutable uint64_t hash = 0;
};

// One output of a cached response, as the backend produced it.
struct CachedOutput {
  std::string name;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;
  std::vector<int64_t> shape;
  std::string data;
};

struct CachedResponse {
  std::vector<CachedOutput> outputs;
};

// Counters of the cache as a whole.
struct ResponseCacheStats {
  uint64_t entries = 0;
  uint64_t bytes = 0;
  uint64_t lookups = 0;
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t evictions = 0;
};

class ResponseCache {
 public:
  using HashFn = uint64_t (*)(std::string_view);

  // A cache of at most `byte_budget` bytes (keys, outputs and bookkeeping).
  // `hash` replaces the key hash (tests force collisions with it).
  explicit ResponseCache(uint64_t byte_budget, HashFn hash = nullptr);
  ResponseCache(const ResponseCache&) = delete;
  ResponseCache& operator=(const ResponseCache&) = delete;

  // The response stored under `key`, now the most recently used; null when
  // there is none. The result stays valid after the entry is evicted.
  std::shared_ptr<const CachedResponse> Lookup(const CacheKey& key) EXCLUDES(mu_);
  // Stores `response` under `key`, evicting the least recently used entries
  // to make room. False (nothing stored) when the entry alone is larger than
  // the budget; an existing entry under `key` is kept.
  bool Insert(CacheKey key, CachedResponse response) EXCLUDES(mu_);
  // Removes every entry of the loaded version `owner` (its unload or reload).
  void RemoveOwner(uint64_t owner) EXCLUDES(mu_);

  uint64_t byte_budget() const { return byte_budget_; }
  ResponseCacheStats Stats() const EXCLUDES(mu_);

  // The bytes an entry is charged.
  static uint64_t EntrySize(const CacheKey& key, const CachedResponse& response);

 private:
  struct Entry {
    CacheKey key;
    std::shared_ptr<const CachedResponse> response;
    uint64_t size = 0;
  };
  using Lru = std::list<Entry>;  // most recently used first
  struct KeyHash {
    size_t operator()(const CacheKey* key) const { return static_cast<size_t>(key->hash); }
  };
  struct KeyEqual {
    bool operator()(const CacheKey* a, const CacheKey* b) const {
      return a->hash == b->hash && a->owner == b->owner && a->bytes == b->bytes;
    }
  };

  void FillHash(const CacheKey& key) const;

  void Erase(Lru::iterator it) REQUIRES(mu_);

  // Constant after construction.
  const uint64_t byte_budget_;
  const HashFn hash_;

  mutable Mutex mu_;
  Lru lru_ GUARDED_BY(mu_);
  // Keys point into lru_'s entries, which never move.
  std::unordered_map<const CacheKey*, Lru::iterator, KeyHash, KeyEqual> index_ GUARDED_BY(mu_);
  uint64_t bytes_ GUARDED_BY(mu_) = 0;
  uint64_t evictions_ GUARDED_BY(mu_) = 0;
  std::atomic<uint64_t> lookups_{0};
  std::atomic<uint64_t> hits_{0};
};

// A request that missed: what to store when its response is complete.
struct CacheMiss {
  ResponseCache* cache = nullptr;
  CacheKey key;
  uint64_t lookup_ns = 0;  // how long the missed lookup took
};

}  // namespace inferd

#endif  // INFERD_CORE_CACHE_RESPONSE_CACHE_H_

#include "core/cache/response_cache.h"

#include <gtest/gtest.h>

namespace inferd {
namespace {

CacheKey Key(uint64_t owner, std::string bytes) { return CacheKey{owner, std::move(bytes)}; }

CachedResponse Response(std::string data) {
  CachedResponse response;
  response.outputs.push_back(CachedOutput{"OUT", INFERD_TYPE_UINT8,
                                          {static_cast<int64_t>(data.size())}, std::move(data)});
  return response;
}

std::string DataOf(const std::shared_ptr<const CachedResponse>& response) {
  return response ? response->outputs.at(0).data : "<none>";
}

uint64_t SameHash(std::string_view) { return 42; }

TEST(ResponseCacheTest, HitReturnsStoredOutputs) {
  ResponseCache cache(1 << 20);
  EXPECT_EQ(cache.Lookup(Key(1, "a")), nullptr);
  EXPECT_TRUE(cache.Insert(Key(1, "a"), Response("answer")));
  EXPECT_EQ(DataOf(cache.Lookup(Key(1, "a"))), "answer");
  const ResponseCacheStats stats = cache.Stats();
  EXPECT_EQ(stats.lookups, 2u);
  EXPECT_EQ(stats.hits, 1u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.entries, 1u);
  EXPECT_EQ(stats.bytes, ResponseCache::EntrySize(Key(1, "a"), Response("answer")));
}

TEST(ResponseCacheTest, EvictsLeastRecentlyUsedUnderBudget) {
  const uint64_t entry = ResponseCache::EntrySize(Key(1, "k0"), Response(std::string(100, 'x')));
  ResponseCache cache(entry * 3);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(cache.Insert(Key(1, "k" + std::to_string(i)), Response(std::string(100, 'a' + i))));
  }
  // k0 is used again, so k1 is now the least recently used.
  EXPECT_EQ(DataOf(cache.Lookup(Key(1, "k0"))), std::string(100, 'a'));
  ASSERT_TRUE(cache.Insert(Key(1, "k3"), Response(std::string(100, 'd'))));
  EXPECT_EQ(cache.Lookup(Key(1, "k1")), nullptr);
  EXPECT_EQ(DataOf(cache.Lookup(Key(1, "k0"))), std::string(100, 'a'));
  EXPECT_EQ(DataOf(cache.Lookup(Key(1, "k2"))), std::string(100, 'c'));
  EXPECT_EQ(DataOf(cache.Lookup(Key(1, "k3"))), std::string(100, 'd'));
  const ResponseCacheStats stats = cache.Stats();
  EXPECT_EQ(stats.entries, 3u);
  EXPECT_EQ(stats.evictions, 1u);
  EXPECT_LE(stats.bytes, cache.byte_budget());
}

TEST(ResponseCacheTest, EntryLargerThanBudgetIsNotStored) {
  ResponseCache cache(1000);
  ASSERT_TRUE(cache.Insert(Key(1, "small"), Response("s")));
  EXPECT_FALSE(cache.Insert(Key(1, "big"), Response(std::string(2000, 'b'))));
  EXPECT_EQ(cache.Lookup(Key(1, "big")), nullptr);
  // Nothing was evicted for it.
  EXPECT_EQ(DataOf(cache.Lookup(Key(1, "small"))), "s");
}

TEST(ResponseCacheTest, CollidingHashesNeverShareAnEntry) {
  ResponseCache cache(1 << 20, &SameHash);
  ASSERT_TRUE(cache.Insert(Key(1, "input-a"), Response("A")));
  EXPECT_EQ(cache.Lookup(Key(1, "input-b")), nullptr);
  ASSERT_TRUE(cache.Insert(Key(1, "input-b"), Response("B")));
  EXPECT_EQ(DataOf(cache.Lookup(Key(1, "input-a"))), "A");
  EXPECT_EQ(DataOf(cache.Lookup(Key(1, "input-b"))), "B");
  // Same bytes, another loaded version: another key.
  EXPECT_EQ(cache.Lookup(Key(2, "input-a")), nullptr);
  EXPECT_EQ(cache.Stats().entries, 2u);
}

TEST(ResponseCacheTest, RemoveOwnerDropsOnlyThatModelsEntries) {
  ResponseCache cache(1 << 20);
  ASSERT_TRUE(cache.Insert(Key(1, "x"), Response("one")));
  ASSERT_TRUE(cache.Insert(Key(1, "y"), Response("one-y")));
  ASSERT_TRUE(cache.Insert(Key(2, "x"), Response("two")));
  const uint64_t two_bytes = ResponseCache::EntrySize(Key(2, "x"), Response("two"));
  cache.RemoveOwner(1);
  EXPECT_EQ(cache.Lookup(Key(1, "x")), nullptr);
  EXPECT_EQ(cache.Lookup(Key(1, "y")), nullptr);
  EXPECT_EQ(DataOf(cache.Lookup(Key(2, "x"))), "two");
  EXPECT_EQ(cache.Stats().entries, 1u);
  EXPECT_EQ(cache.Stats().bytes, two_bytes);
}

TEST(ResponseCacheTest, LookedUpResponseOutlivesEviction) {
  const uint64_t entry = ResponseCache::EntrySize(Key(1, "a"), Response("first"));
  ResponseCache cache(entry);
  ASSERT_TRUE(cache.Insert(Key(1, "a"), Response("first")));
  std::shared_ptr<const CachedResponse> held = cache.Lookup(Key(1, "a"));
  ASSERT_TRUE(cache.Insert(Key(1, "b"), Response("other")));
  EXPECT_EQ(cache.Lookup(Key(1, "a")), nullptr);
  EXPECT_EQ(DataOf(held), "first");
}

}  // namespace
}  // namespace inferd

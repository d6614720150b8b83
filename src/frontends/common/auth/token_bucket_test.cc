// Per-key quotas in simulated time.
#include "common/auth/token_bucket.h"

#include <gtest/gtest.h>

namespace inferd::auth {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(TokenBucketTest, StartsFullAndRefusesPastItsBurst) {
  const auto start = TokenBucket::Clock::time_point();
  TokenBucket bucket(/*rate=*/2, /*burst=*/3, start);
  seconds retry_after{0};
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(bucket.TryTake(start, &retry_after)) << i;
  EXPECT_FALSE(bucket.TryTake(start, &retry_after));
  EXPECT_EQ(retry_after, seconds(1));  // half a second, rounded up to whole seconds
}

TEST(TokenBucketTest, RefillsAtItsRate) {
  // Binary fractions of a second, so the simulated refills add up exactly.
  using std::chrono::microseconds;
  auto now = TokenBucket::Clock::time_point();
  TokenBucket bucket(/*rate=*/16, /*burst=*/1, now);
  seconds retry_after{0};
  EXPECT_TRUE(bucket.TryTake(now, &retry_after));
  now += microseconds(31250);
  EXPECT_FALSE(bucket.TryTake(now, &retry_after));  // half a token
  now += microseconds(31250);
  EXPECT_TRUE(bucket.TryTake(now, &retry_after));
  // Over 10 simulated seconds, 160 requests pass at 16 a second, whatever the tries.
  int passed = 0;
  for (int i = 0; i < 640; ++i) {
    now += microseconds(15625);
    passed += bucket.TryTake(now, &retry_after) ? 1 : 0;
  }
  EXPECT_EQ(passed, 160);
}

TEST(TokenBucketTest, NeverHoldsMoreThanItsBurst) {
  auto now = TokenBucket::Clock::time_point();
  TokenBucket bucket(/*rate=*/100, /*burst=*/5, now);
  now += seconds(3600);
  seconds retry_after{0};
  int passed = 0;
  while (bucket.TryTake(now, &retry_after)) ++passed;
  EXPECT_EQ(passed, 5);
}

TEST(TokenBucketTest, RetryAfterCountsWholeSecondsToTheNextToken) {
  const auto now = TokenBucket::Clock::time_point();
  TokenBucket bucket(/*rate=*/0.25, /*burst=*/1, now);
  seconds retry_after{0};
  EXPECT_TRUE(bucket.TryTake(now, &retry_after));
  EXPECT_FALSE(bucket.TryTake(now, &retry_after));
  EXPECT_EQ(retry_after, seconds(4));
  EXPECT_FALSE(bucket.TryTake(now + milliseconds(3500), &retry_after));
  EXPECT_EQ(retry_after, seconds(1));
  EXPECT_TRUE(bucket.TryTake(now + seconds(4), &retry_after));
}

}  // namespace
}  // namespace inferd::auth

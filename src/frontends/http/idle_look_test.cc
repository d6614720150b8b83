#include "http/idle_look.h"

#include <gtest/gtest.h>

namespace inferd::http {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

TEST(IdleLookPolicyTest, AFreshThreadLooks) {
  EXPECT_TRUE(IdleLookPolicy().ShouldLook());
}

TEST(IdleLookPolicyTest, LooksThatFindNothingStopTheLooking) {
  IdleLookPolicy policy;
  int misses = 0;
  while (policy.ShouldLook()) {
    policy.OnLook(false);
    ++misses;
  }
  // A few empty windows, not dozens: each one is 50 us of CPU thrown away.
  EXPECT_LE(misses, 4);
}

TEST(IdleLookPolicyTest, SparseRequestsKeepTheThreadAsleep) {
  IdleLookPolicy policy;
  while (policy.ShouldLook()) policy.OnLook(false);
  // 3,000 req/s over two threads: work every ~0.7 ms, far past the window.
  for (int i = 0; i < 1000; ++i) {
    policy.OnSleep(microseconds(700));
    EXPECT_FALSE(policy.ShouldLook()) << "after sleep " << i;
  }
}

TEST(IdleLookPolicyTest, QuickArrivalsAfterSleepsStartTheLookingAgain) {
  IdleLookPolicy policy;
  while (policy.ShouldLook()) policy.OnLook(false);
  int quick = 0;
  while (!policy.ShouldLook()) {
    policy.OnSleep(microseconds(10));
    ++quick;
    ASSERT_LT(quick, 100) << "quick arrivals never turned the looking back on";
  }
  EXPECT_GE(quick, 2) << "one quick arrival alone should not be enough";
}

TEST(IdleLookPolicyTest, AnOccasionalMissDoesNotStopABusyThread) {
  IdleLookPolicy policy;
  for (int i = 0; i < 100; ++i) {
    for (int hit = 0; hit < 9; ++hit) policy.OnLook(true);
    policy.OnLook(false);
    EXPECT_TRUE(policy.ShouldLook()) << "round " << i;
  }
}

TEST(IdleLookPolicyTest, MostlyLongSleepsWithSomeQuickOnesStayAsleep) {
  IdleLookPolicy policy;
  while (policy.ShouldLook()) policy.OnLook(false);
  for (int i = 0; i < 200; ++i) {
    policy.OnSleep(i % 2 == 0 ? microseconds(10) : milliseconds(1));
    EXPECT_FALSE(policy.ShouldLook()) << "after sleep " << i;
  }
}

}  // namespace
}  // namespace inferd::http

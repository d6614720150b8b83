// The eviction policy as a function: least recently used first, only as many
// as the load needs, never what is busy, pinned, kept by an ensemble or part
// of the load; and why a load cannot fit.
#include "core/lifecycle/eviction_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace inferd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

ResidentModel Model(const std::string& key, uint64_t bytes, uint64_t used) {
  return ResidentModel{key, bytes, used, false, false, false};
}

TEST(EvictionPolicyTest, FitsWithoutEvictingWhileTheBudgetHasRoom) {
  EvictionPlan plan = PlanEvictions({Model("a", 10, 1), Model("b", 10, 2)}, 20, 40, {});
  EXPECT_TRUE(plan.fits);
  EXPECT_THAT(plan.victims, IsEmpty());
}

TEST(EvictionPolicyTest, EvictsLeastRecentlyUsedFirstAndOnlyAsManyAsNeeded) {
  EvictionPlan plan = PlanEvictions(
      {Model("new", 10, 30), Model("old", 10, 10), Model("mid", 10, 20), Model("x", 10, 40)}, 15,
      50, {});
  ASSERT_TRUE(plan.fits);
  // 40 used + 15 > 50: one eviction (the oldest) is enough.
  EXPECT_THAT(plan.victims, ElementsAre("old"));
  plan = PlanEvictions({Model("new", 10, 30), Model("old", 10, 10), Model("mid", 10, 20)}, 25,
                       30, {});
  ASSERT_TRUE(plan.fits);
  EXPECT_THAT(plan.victims, ElementsAre("old", "mid", "new"));
}

TEST(EvictionPolicyTest, NeverEvictsBusyPinnedKeptOrExcludedModels) {
  ResidentModel busy = Model("busy", 10, 1);
  busy.busy = true;
  ResidentModel pinned = Model("pinned", 10, 2);
  pinned.pinned = true;
  ResidentModel kept = Model("kept", 10, 3);
  kept.kept = true;
  EvictionPlan plan = PlanEvictions(
      {busy, pinned, kept, Model("step", 10, 4), Model("idle", 10, 5)}, 10, 50, {"step"});
  ASSERT_TRUE(plan.fits);
  EXPECT_THAT(plan.victims, ElementsAre("idle"));
  plan = PlanEvictions({busy, pinned, kept, Model("step", 10, 4)}, 10, 40, {"step"});
  EXPECT_FALSE(plan.fits);
  EXPECT_FALSE(plan.hopeless);  // busy and kept models may free up
  EXPECT_THAT(plan.victims, IsEmpty());
  EXPECT_THAT(plan.why_not, HasSubstr("requests in flight 10"));
}

TEST(EvictionPolicyTest, HopelessWhenPinnedModelsLeaveTooLittle) {
  ResidentModel pinned = Model("pinned", 30, 1);
  pinned.pinned = true;
  EvictionPlan plan = PlanEvictions({pinned, Model("idle", 5, 2)}, 15, 40, {});
  EXPECT_FALSE(plan.fits);
  EXPECT_TRUE(plan.hopeless);
  EXPECT_THAT(plan.why_not, HasSubstr("pinned models hold 30"));
  // A model larger than the whole budget never fits.
  plan = PlanEvictions({}, 41, 40, {});
  EXPECT_TRUE(plan.hopeless);
}

TEST(EvictionPolicyTest, TiesGoByKeySoThePlanIsDeterministic) {
  EvictionPlan plan = PlanEvictions({Model("b", 10, 1), Model("a", 10, 1)}, 10, 20, {});
  EXPECT_THAT(plan.victims, ElementsAre("a"));
}

}  // namespace
}  // namespace inferd

// Strict readiness's rule (readiness.h) on records made by hand.
#include "core/lifecycle/readiness.h"

#include <gtest/gtest.h>

namespace inferd {
namespace {

VersionRecord Version(ModelState state, bool skipped = false) {
  return VersionRecord{state, "", nullptr, skipped};
}

ModelRecord Counted(std::map<int64_t, VersionRecord> versions) {
  ModelRecord record;
  record.aspired = true;
  record.in_lifecycle = true;
  record.versions = std::move(versions);
  return record;
}

TEST(ReadinessTest, AModelRefusedBeforeTheLifecycleNeverCounts) {
  ModelRecord refused;  // a broken config, a model not in the repository
  refused.aspired = true;
  refused.error = "config.pbtxt:1:1: oops";
  EXPECT_EQ(HoldsBackReadiness(refused), "");
}

TEST(ReadinessTest, AnUnloadedOrNeverAskedModelDoesNotCount) {
  ModelRecord unloaded = Counted({{1, Version(ModelState::kUnavailable)}});
  unloaded.aspired = false;
  EXPECT_EQ(HoldsBackReadiness(unloaded), "");
  EXPECT_EQ(HoldsBackReadiness(ModelRecord{}), "");
}

TEST(ReadinessTest, AModelInTheLifecycleWithoutAVersionHoldsItBack) {
  EXPECT_EQ(HoldsBackReadiness(Counted({})), "no version to serve");
  // The policy names only versions without a folder.
  EXPECT_EQ(HoldsBackReadiness(Counted({{4, Version(ModelState::kUnavailable, true)}})),
            "no version to serve");
}

TEST(ReadinessTest, EveryVersionThatLoadsMustBeReady) {
  EXPECT_EQ(HoldsBackReadiness(Counted({{1, Version(ModelState::kReady)}})), "");
  EXPECT_EQ(HoldsBackReadiness(Counted({{1, Version(ModelState::kReady)},
                                        {2, Version(ModelState::kUnavailable)}})),
            "version 2 is UNAVAILABLE");
  EXPECT_EQ(HoldsBackReadiness(Counted({{1, Version(ModelState::kLoading)}})),
            "version 1 is LOADING");
  EXPECT_EQ(HoldsBackReadiness(Counted({{1, Version(ModelState::kUnloading)}})),
            "version 1 is UNLOADING");
}

TEST(ReadinessTest, AVersionSkippedForItsMissingFolderDoesNotCount) {
  EXPECT_EQ(HoldsBackReadiness(Counted({{2, Version(ModelState::kReady)},
                                        {4, Version(ModelState::kUnavailable, true)}})),
            "");
}

TEST(ReadinessTest, TheServerIsReadyWhenNoModelHoldsItBack) {
  ModelRecords records;
  records["good"] = Counted({{1, Version(ModelState::kReady)}});
  records["refused"].aspired = true;
  records["refused"].error = "not in any model repository";
  EXPECT_TRUE(StrictlyReady(records));
  records["failed"] = Counted({{1, Version(ModelState::kUnavailable)}});
  EXPECT_FALSE(StrictlyReady(records));
  records["failed"].aspired = false;  // unloaded
  records["failed"].in_lifecycle = false;
  EXPECT_TRUE(StrictlyReady(records));
}

}  // namespace
}  // namespace inferd

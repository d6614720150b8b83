// The load plan as a function: what a load keeps, retires first, or skips,
// for each kind of load and transition policy; and how the loader's answer
// merges into the versions that serve.
#include "core/lifecycle/load_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace inferd {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A model whose versions 1 and 2 serve, loaded from files {top 7, 1: 11, 2: 22}.
CurrentLoad Serving() {
  CurrentLoad current;
  current.fingerprint = {7, {{1, 11}, {2, 22}}};
  current.versions[1] = {true, true, true};
  current.versions[2] = {true, true, true};
  return current;
}

TEST(LoadPlanTest, APlainLoadOfUnchangedFilesDoesNothing) {
  const CurrentLoad current = Serving();
  const LoadPlan plan = PlanLoad(current, current.fingerprint, LoadKind::kIfChanged,
                                 TransitionPolicy::kAvailabilityPreserving);
  EXPECT_TRUE(plan.nothing_to_do);
}

TEST(LoadPlanTest, APlainLoadAfterAFailedReloadLoadsAgain) {
  CurrentLoad current = Serving();
  current.versions[2].clean = false;  // kept serving after its reload failed
  const LoadPlan plan = PlanLoad(current, current.fingerprint, LoadKind::kIfChanged,
                                 TransitionPolicy::kAvailabilityPreserving);
  EXPECT_FALSE(plan.nothing_to_do);
  EXPECT_THAT(plan.reuse, ElementsAre(1, 2));
}

TEST(LoadPlanTest, APlainLoadOfFileOverridesLoadsAgain) {
  CurrentLoad current = Serving();
  current.files_overridden = true;
  EXPECT_FALSE(PlanLoad(current, current.fingerprint, LoadKind::kIfChanged,
                        TransitionPolicy::kAvailabilityPreserving)
                   .nothing_to_do);
}

TEST(LoadPlanTest, APollKeepsTheVersionsWhoseFilesDidNotChange) {
  const CurrentLoad current = Serving();
  const LoadPlan plan = PlanLoad(current, {7, {{1, 11}, {2, 23}, {3, 33}}},
                                 LoadKind::kChangedVersions,
                                 TransitionPolicy::kAvailabilityPreserving);
  EXPECT_FALSE(plan.nothing_to_do);
  EXPECT_THAT(plan.reuse, ElementsAre(1));
  EXPECT_THAT(plan.retire_first, IsEmpty());
}

TEST(LoadPlanTest, AChangedConfigOrAnOverrideOrAFailureKeepsNothing) {
  const CurrentLoad current = Serving();
  EXPECT_THAT(PlanLoad(current, {8, current.fingerprint.versions}, LoadKind::kChangedVersions,
                       TransitionPolicy::kAvailabilityPreserving)
                  .reuse,
              IsEmpty());
  CurrentLoad overridden = Serving();
  overridden.config_overridden = true;
  EXPECT_THAT(PlanLoad(overridden, overridden.fingerprint, LoadKind::kChangedVersions,
                       TransitionPolicy::kAvailabilityPreserving)
                  .reuse,
              IsEmpty());
  CurrentLoad failed = Serving();
  failed.failed = true;
  EXPECT_THAT(PlanLoad(failed, failed.fingerprint, LoadKind::kChangedVersions,
                       TransitionPolicy::kAvailabilityPreserving)
                  .reuse,
              IsEmpty());
}

TEST(LoadPlanTest, AVersionThatIsNotReadyIsNotKept) {
  CurrentLoad current = Serving();
  current.versions[2].ready = false;
  EXPECT_THAT(PlanLoad(current, current.fingerprint, LoadKind::kChangedVersions,
                       TransitionPolicy::kAvailabilityPreserving)
                  .reuse,
              ElementsAre(1));
}

TEST(LoadPlanTest, AFreshLoadKeepsNothingEvenWithTheSameFiles) {
  const CurrentLoad current = Serving();
  for (LoadKind kind : {LoadKind::kFresh, LoadKind::kIfNotReady}) {
    const LoadPlan plan =
        PlanLoad(current, current.fingerprint, kind, TransitionPolicy::kAvailabilityPreserving);
    EXPECT_FALSE(plan.nothing_to_do);
    EXPECT_THAT(plan.reuse, IsEmpty());
    EXPECT_THAT(plan.retire_first, IsEmpty());
  }
}

TEST(LoadPlanTest, ResourcePreservingRetiresWhatItDoesNotKeepBeforeTheLoad) {
  const CurrentLoad current = Serving();
  const LoadPlan poll = PlanLoad(current, {7, {{1, 11}, {2, 23}}}, LoadKind::kChangedVersions,
                                 TransitionPolicy::kResourcePreserving);
  EXPECT_THAT(poll.reuse, ElementsAre(1));
  EXPECT_THAT(poll.retire_first, ElementsAre(2));
  const LoadPlan fresh = PlanLoad(current, current.fingerprint, LoadKind::kFresh,
                                  TransitionPolicy::kResourcePreserving);
  EXPECT_THAT(fresh.retire_first, ElementsAre(1, 2));
}

TEST(LoadPlanTest, CurrentLoadOfARecordReadsItsVersions) {
  ModelRecord record;
  record.error = "broken";
  record.config_overridden = true;
  record.loaded_fingerprint = {5, {{1, 1}}};
  record.versions[1].state = ModelState::kUnavailable;
  record.versions[1].reason = "why";
  const CurrentLoad current = CurrentLoadOf(record);
  EXPECT_TRUE(current.failed);
  EXPECT_TRUE(current.config_overridden);
  EXPECT_FALSE(current.files_overridden);
  EXPECT_EQ(current.fingerprint, record.loaded_fingerprint);
  ASSERT_EQ(current.versions.size(), 1u);
  EXPECT_FALSE(current.versions.at(1).loaded);
  EXPECT_FALSE(current.versions.at(1).ready);
  EXPECT_FALSE(current.versions.at(1).clean);
}

TEST(LoadPlanTest, AFailedVersionWithoutAPreviousLoadIsUnavailableWithItsReason) {
  std::map<int64_t, VersionRecord> versions;
  std::vector<std::shared_ptr<ModelVersion>> retire;
  const std::string failures =
      MergeLoadedVersions({{1, nullptr, "v1 broke"}, {2, nullptr, "v2 broke"}}, &versions, &retire);
  EXPECT_EQ(failures, "v1 broke; v2 broke");
  ASSERT_EQ(versions.size(), 2u);
  EXPECT_EQ(versions.at(1).state, ModelState::kUnavailable);
  EXPECT_EQ(versions.at(2).reason, "v2 broke");
  EXPECT_THAT(retire, IsEmpty());
}

}  // namespace
}  // namespace inferd

// The lifecycle with real model versions (model_lifecycle_fixture.h): version
// policies, and POLL mode with Poll() called directly (no poller thread).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/test_util/model_lifecycle_fixture.h"

namespace inferd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// --- Version policies

TEST_F(ModelLifecycleTest, TheDefaultPolicyServesTheLatestVersionOnly) {
  WriteModel("multi", {1, 2, 3});
  Start(ModelControlMode::kNone);
  EXPECT_THAT(lifecycle_->ReadyVersions("multi"), ElementsAre(3));
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("multi/3 READY"));
  const auto old = lifecycle_->Get("multi", 1);
  EXPECT_EQ(old.status().code(), Status::Code::kNotFound);
  EXPECT_THAT(old.status().message(), HasSubstr("has no version 1"));
}

TEST_F(ModelLifecycleTest, LatestTwoServesTheTwoHighestVersions) {
  WriteModel("multi", {1, 2, 3}, "version_policy: { latest: { num_versions: 2 } }");
  Start(ModelControlMode::kNone);
  EXPECT_THAT(lifecycle_->ReadyVersions("multi"), ElementsAre(2, 3));
  EXPECT_EQ(Ready("multi")->version(), 3);  // -1: the highest
}

TEST_F(ModelLifecycleTest, AllServesEveryVersion) {
  WriteModel("multi", {1, 2, 3}, "version_policy: { all: {} }");
  Start(ModelControlMode::kNone);
  EXPECT_THAT(lifecycle_->ReadyVersions("multi"), ElementsAre(1, 2, 3));
  EXPECT_EQ(Ready("multi", 2)->version(), 2);
}

TEST_F(ModelLifecycleTest, SpecificServesTheNamedVersions) {
  WriteModel("multi", {1, 2, 3}, "version_policy: { specific: { versions: [ 1, 3 ] } }");
  Start(ModelControlMode::kNone);
  EXPECT_THAT(lifecycle_->ReadyVersions("multi"), ElementsAre(1, 3));
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("multi/1 READY", "multi/3 READY"));
}

TEST_F(ModelLifecycleTest, ASpecificVersionWithoutAFolderIsUnavailableWithTheReason) {
  WriteModel("multi", {1, 2}, "version_policy: { specific: { versions: [ 2, 4 ] } }");
  Start(ModelControlMode::kExplicit);
  const Status status = lifecycle_->Load("multi", {});
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_THAT(status.message(), HasSubstr("version 4"));

  const std::vector<IndexEntry> index = lifecycle_->Index();
  EXPECT_THAT(States(index), ElementsAre("multi/2 READY", "multi/4 UNAVAILABLE"));
  EXPECT_THAT(Reason(index, "multi", 4), HasSubstr("does not exist"));
  EXPECT_THAT(lifecycle_->ReadyVersions("multi"), ElementsAre(2));
  // Version 4 was never loaded (Triton skips it): version 2 serves, so ready.
  EXPECT_TRUE(lifecycle_->AllReady());
}

// --- POLL

TEST_F(ModelLifecycleTest, PollLoadsANewModelOnTheSecondPollThatSeesTheSameFiles) {
  WriteModel("alpha", {1});
  Start(ModelControlMode::kPoll);
  WriteModel("beta", {1});

  lifecycle_->Poll();  // first sight: it may still be being copied
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("alpha/1 READY", "beta/-1 LOADING"));
  EXPECT_THAT(lifecycle_->ReadyVersions("beta"), IsEmpty());

  lifecycle_->Poll();  // unchanged since: settled
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("alpha/1 READY", "beta/1 READY"));
}

TEST_F(ModelLifecycleTest, PollWaitsWhileAModelIsStillChanging) {
  Start(ModelControlMode::kPoll);
  WriteModel("beta", {1});
  lifecycle_->Poll();
  WriteFile("beta/labels.txt", "cat\n");  // still being written
  lifecycle_->Poll();
  EXPECT_THAT(lifecycle_->ReadyVersions("beta"), IsEmpty());
  lifecycle_->Poll();
  EXPECT_THAT(lifecycle_->ReadyVersions("beta"), ElementsAre(1));
}

TEST_F(ModelLifecycleTest, PollLeavesAnUnchangedModelAlone) {
  WriteModel("alpha", {1});
  Start(ModelControlMode::kPoll);
  const std::shared_ptr<ModelVersion> serving = Ready("alpha", 1);
  lifecycle_->Poll();
  lifecycle_->Poll();
  lifecycle_->Poll();
  EXPECT_EQ(Ready("alpha", 1), serving);
}

TEST_F(ModelLifecycleTest, PollUnloadsARemovedModel) {
  WriteModel("alpha", {1});
  WriteModel("beta", {1});
  Start(ModelControlMode::kPoll);
  std::filesystem::remove_all(repo_.path() / "alpha");

  lifecycle_->Poll();
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("beta/1 READY"));
  EXPECT_EQ(lifecycle_->Get("alpha", -1).status().code(), Status::Code::kNotFound);
  EXPECT_THAT(lifecycle_->ReadyVersions("alpha"), IsEmpty());
}

TEST_F(ModelLifecycleTest, PollReloadsOnlyTheVersionWhoseFilesChanged) {
  WriteModel("multi", {1, 2}, "version_policy: { all: {} }");
  Start(ModelControlMode::kPoll);
  const std::shared_ptr<ModelVersion> one = Ready("multi", 1);
  const std::shared_ptr<ModelVersion> two = Ready("multi", 2);

  WriteFile("multi/2/model.txt", "new weights");
  lifecycle_->Poll();
  EXPECT_EQ(Ready("multi", 2), two);  // changed once: not yet
  lifecycle_->Poll();
  EXPECT_EQ(Ready("multi", 1), one);
  const std::shared_ptr<ModelVersion> reloaded = Ready("multi", 2);
  ASSERT_NE(reloaded, nullptr);
  EXPECT_NE(reloaded, two);
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("multi/1 READY", "multi/2 READY"));
}

TEST_F(ModelLifecycleTest, PollReloadsEveryVersionWhenTheConfigChanged) {
  WriteModel("multi", {1, 2}, "version_policy: { all: {} }");
  Start(ModelControlMode::kPoll);
  const std::shared_ptr<ModelVersion> one = Ready("multi", 1);
  const std::shared_ptr<ModelVersion> two = Ready("multi", 2);

  WriteConfig("multi", IdentityConfig("multi", "version_policy: { all: {} }", 8));
  lifecycle_->Poll();
  lifecycle_->Poll();
  const std::shared_ptr<ModelVersion> new_one = Ready("multi", 1);
  const std::shared_ptr<ModelVersion> new_two = Ready("multi", 2);
  ASSERT_NE(new_one, nullptr);
  ASSERT_NE(new_two, nullptr);
  EXPECT_NE(new_one, one);
  EXPECT_NE(new_two, two);
  EXPECT_EQ(new_one->config().max_batch_size(), 8);
  EXPECT_EQ(new_two->config().max_batch_size(), 8);
}

TEST_F(ModelLifecycleTest, PollServesANewLatestVersionAndRetiresTheOldOne) {
  WriteModel("alpha", {1});
  Start(ModelControlMode::kPoll);
  repo_.MakeDir("alpha/2");
  lifecycle_->Poll();
  EXPECT_THAT(lifecycle_->ReadyVersions("alpha"), ElementsAre(1));
  lifecycle_->Poll();
  EXPECT_THAT(lifecycle_->ReadyVersions("alpha"), ElementsAre(2));
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("alpha/2 READY"));
}

TEST_F(ModelLifecycleTest, PollKeepsServingWhenAChangedConfigIsBroken) {
  WriteModel("alpha", {1});
  Start(ModelControlMode::kPoll);
  const std::shared_ptr<ModelVersion> serving = Ready("alpha", 1);
  WriteConfig("alpha", "name: \"alpha\" max_batch_size: [oops");
  lifecycle_->Poll();
  lifecycle_->Poll();
  EXPECT_EQ(Ready("alpha", 1), serving);
  EXPECT_THAT(Reason(lifecycle_->Index(), "alpha", 1),
              HasSubstr("reload failed, the previous version keeps serving"));

  // Fixed: the next settled change loads it.
  WriteConfig("alpha", IdentityConfig("alpha", "", 8));
  lifecycle_->Poll();
  lifecycle_->Poll();
  const std::shared_ptr<ModelVersion> fixed = Ready("alpha", 1);
  ASSERT_NE(fixed, nullptr);
  EXPECT_NE(fixed, serving);
  EXPECT_EQ(fixed->config().max_batch_size(), 8);
  EXPECT_EQ(Reason(lifecycle_->Index(), "alpha", 1), "");
}

}  // namespace
}  // namespace inferd

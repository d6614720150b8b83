// Strict readiness through the lifecycle (readiness.h, Triton 2.51's rule):
// loads refused before the model lifecycle leave it alone, a version whose
// backend fails holds it back until that model loads or is unloaded, a failed
// reload of what serves does not, in each control mode.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/test_util/model_lifecycle_fixture.h"

namespace inferd {
namespace {

using ::testing::ElementsAre;

// The identity backend's initialization fails once while `file` exists.
std::string FailsWhile(const std::filesystem::path& file) {
  return "parameters { key: \"fail_initialize_file\" value: { string_value: \"" + file.string() +
         "\" } }";
}

TEST_F(ModelLifecycleTest, ExplicitLoadsRefusedBeforeTheLifecycleLeaveTheServerReady) {
  WriteModel("good", {1});
  WriteConfig("broken", "name: \"broken\" max_batch_size: [oops");
  repo_.MakeDir("broken/1");
  Start(ModelControlMode::kExplicit, {"good"});
  ASSERT_TRUE(lifecycle_->AllReady());

  EXPECT_EQ(lifecycle_->Load("ghost", {}).code(), Status::Code::kNotFound);
  EXPECT_TRUE(lifecycle_->AllReady());
  EXPECT_EQ(lifecycle_->Load("broken", {}).code(), Status::Code::kInvalidArg);
  EXPECT_TRUE(lifecycle_->AllReady());
  LoadOverrides bad_json;
  bad_json.config_json = "{\"max_batch_size\": ";
  EXPECT_EQ(lifecycle_->Load("good", bad_json).code(), Status::Code::kInvalidArg);
  EXPECT_TRUE(lifecycle_->AllReady());
  EXPECT_NE(Ready("good"), nullptr);  // still serves its last load
}

TEST_F(ModelLifecycleTest, AVersionWhoseBackendFailsHoldsReadinessBackUntilItLoads) {
  const std::filesystem::path trigger = repo_.path() / "fail-once";
  WriteModel("flaky", {1}, FailsWhile(trigger));
  Start(ModelControlMode::kExplicit);
  repo_.WriteFile("fail-once", "");

  EXPECT_EQ(lifecycle_->Load("flaky", {}).code(), Status::Code::kInvalidArg);
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("flaky/1 UNAVAILABLE"));
  EXPECT_FALSE(lifecycle_->AllReady());  // as Triton: it reached the model lifecycle

  ASSERT_TRUE(lifecycle_->Load("flaky", {}).ok());  // the trigger is gone
  EXPECT_TRUE(lifecycle_->AllReady());
}

TEST_F(ModelLifecycleTest, UnloadingAModelThatFailedToLoadMakesTheServerReadyAgain) {
  WriteConfig("nobackend", "name: \"nobackend\" backend: \"no_such_backend\" "
                           "input [ { name: \"I\" data_type: TYPE_INT32 dims: [ 1 ] } ] "
                           "output [ { name: \"O\" data_type: TYPE_INT32 dims: [ 1 ] } ]");
  repo_.MakeDir("nobackend/1");
  Start(ModelControlMode::kExplicit);
  EXPECT_FALSE(lifecycle_->Load("nobackend", {}).ok());
  EXPECT_FALSE(lifecycle_->AllReady());
  // Triton 2.51 keeps counting the failed version after the unload; inferd
  // does not count what was unloaded (docs/model-repository.md).
  ASSERT_TRUE(lifecycle_->Unload("nobackend").ok());
  EXPECT_TRUE(lifecycle_->AllReady());
}

TEST_F(ModelLifecycleTest, AFailedReloadOfWhatServesKeepsTheServerReady) {
  const std::filesystem::path trigger = repo_.path() / "fail-once";
  WriteModel("alpha", {1});
  Start(ModelControlMode::kExplicit, {"alpha"});
  WriteConfig("alpha", IdentityConfig("alpha", FailsWhile(trigger)));
  repo_.WriteFile("fail-once", "");

  EXPECT_FALSE(lifecycle_->Load("alpha", {}).ok());
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("alpha/1 READY"));  // the old load
  EXPECT_TRUE(lifecycle_->AllReady());
}

TEST_F(ModelLifecycleTest, ANewVersionThatFailsToLoadHoldsReadinessBack) {
  const std::filesystem::path trigger = repo_.path() / "fail-once";
  WriteModel("multi", {1}, "version_policy: { all: {} } " + FailsWhile(trigger));
  Start(ModelControlMode::kExplicit, {"multi"});
  repo_.MakeDir("multi/2");
  repo_.WriteFile("fail-once", "");

  EXPECT_FALSE(lifecycle_->Load("multi", {}).ok());
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("multi/1 READY", "multi/2 UNAVAILABLE"));
  EXPECT_FALSE(lifecycle_->AllReady());
}

TEST_F(ModelLifecycleTest, AtStartAModelWithoutAVersionFolderHoldsReadinessBack) {
  WriteModel("good", {1});
  WriteModel("empty", {});
  Start(ModelControlMode::kNone);
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("empty/-1 UNAVAILABLE", "good/1 READY"));
  EXPECT_FALSE(lifecycle_->AllReady());  // Triton: its lifecycle holds no version
}

TEST_F(ModelLifecycleTest, AnEnsembleDoesNotCountWhileItsComposingModelIsUnloaded) {
  WriteIdentity(repo_, "m", 3);
  repo_.WriteFile("e/config.pbtxt", EnsembleConfig("e", "m", 3));
  repo_.MakeDir("e/1");
  Start(ModelControlMode::kExplicit, {"e"});
  ASSERT_TRUE(lifecycle_->AllReady());
  ASSERT_TRUE(lifecycle_->Unload("m").ok());
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("e/1 UNAVAILABLE", "m/-1 UNAVAILABLE"));
  EXPECT_TRUE(lifecycle_->AllReady());  // Triton unloads the ensemble with it
}

TEST_F(ModelLifecycleTest, AnEnsembleRefusedForItsStepsDoesNotCount) {
  WriteIdentity(repo_, "m", 3);
  repo_.WriteFile("e/config.pbtxt", EnsembleConfig("e", "m", 5));  // m takes [3]
  repo_.MakeDir("e/1");
  Start(ModelControlMode::kExplicit);
  EXPECT_FALSE(lifecycle_->Load("e", {}).ok());
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("e/1 UNAVAILABLE", "m/1 READY"));
  EXPECT_TRUE(lifecycle_->AllReady());  // Triton refuses it in its dependency graph
}

TEST_F(ModelLifecycleTest, PollLeavesAModelWithABrokenConfigOutOfReadiness) {
  WriteModel("good", {1});
  Start(ModelControlMode::kPoll);
  WriteConfig("broken", "name: \"broken\" max_batch_size: [oops");
  repo_.MakeDir("broken/1");
  lifecycle_->Poll();
  lifecycle_->Poll();  // settled: two polls saw the same files
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("broken/-1 UNAVAILABLE", "good/1 READY"));
  EXPECT_TRUE(lifecycle_->AllReady());
}

}  // namespace
}  // namespace inferd

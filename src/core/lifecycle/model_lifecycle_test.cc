// The lifecycle with real model versions (model_lifecycle_fixture.h): control
// modes NONE and EXPLICIT, the index states, the rate limiter's pools, and
// the two transition policies on a failed reload.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/test_util/model_lifecycle_fixture.h"

namespace inferd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST_F(ModelLifecycleTest, NoneModeLoadsEveryModelAtStart) {
  WriteModel("alpha", {1});
  WriteModel("beta", {1, 2});  // default policy: latest 1
  WriteConfig("broken", "name: \"broken\" max_batch_size: [oops");
  repo_.MakeDir("broken/1");
  Start(ModelControlMode::kNone);

  const std::vector<IndexEntry> index = lifecycle_->Index();
  EXPECT_THAT(States(index),
              ElementsAre("alpha/1 READY", "beta/2 READY", "broken/-1 UNAVAILABLE"));
  EXPECT_THAT(Reason(index, "broken", -1), HasSubstr("config.pbtxt"));
  EXPECT_EQ(Ready("alpha")->version(), 1);
  EXPECT_EQ(Ready("beta")->version(), 2);
  EXPECT_THAT(lifecycle_->ReadyVersions("beta"), ElementsAre(2));
  EXPECT_EQ(lifecycle_->Loaded().size(), 2u);
  // Its config was refused before it reached the model lifecycle: readiness
  // does not count it (Triton: a model that fails to poll).
  EXPECT_TRUE(lifecycle_->AllReady());

  const auto broken = lifecycle_->Get("broken", -1);
  EXPECT_EQ(broken.status().code(), Status::Code::kUnavailable);
  EXPECT_THAT(broken.status().message(), HasSubstr("model 'broken' is not available"));
}

TEST_F(ModelLifecycleTest, NoneModeWithGoodModelsIsAllReady) {
  WriteModel("alpha", {1});
  WriteModel("beta", {1});
  Start(ModelControlMode::kNone);
  EXPECT_TRUE(lifecycle_->AllReady());
}

TEST_F(ModelLifecycleTest, ExplicitModeLoadsNothingUntilAsked) {
  WriteModel("alpha", {1});
  WriteModel("beta", {1});
  Start(ModelControlMode::kExplicit);

  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("alpha/-1 ", "beta/-1 "));
  EXPECT_TRUE(lifecycle_->AllReady());  // nothing was asked for
  const auto not_loaded = lifecycle_->Get("alpha", -1);
  EXPECT_EQ(not_loaded.status().code(), Status::Code::kUnavailable);
  EXPECT_THAT(not_loaded.status().message(), HasSubstr("model 'alpha' is not loaded"));

  ASSERT_TRUE(lifecycle_->Load("alpha", {}).ok());
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("alpha/1 READY", "beta/-1 "));
  EXPECT_EQ(Ready("alpha")->name(), "alpha");
  EXPECT_TRUE(lifecycle_->AllReady());
}

// The rate limiter's pools follow loads, reloads and unloads: a pool is as
// large as the largest ask of the versions loaded, and a conflicting use of a
// name fails the model that brings it.
TEST_F(ModelLifecycleTest, RateLimiterPoolsFollowLoadReloadAndUnload) {
  RateLimiter limiter({});
  rate_limiter_ = &limiter;
  const auto asking = [](int count, bool global = false) {
    return " instance_group [ { count: 2 kind: KIND_CPU rate_limiter { resources [ { name: \"R\" "
           "count: " + std::to_string(count) + (global ? " global: true" : "") + " } ] } } ]";
  };
  WriteModel("alpha", {1}, asking(2));
  WriteModel("beta", {1}, asking(1, true));
  Start(ModelControlMode::kExplicit);
  ASSERT_TRUE(lifecycle_->Load("alpha", {}).ok());
  EXPECT_EQ(limiter.Pool("R", 0).size, 2);

  const Status conflict = lifecycle_->Load("beta", {});
  EXPECT_FALSE(conflict.ok());
  EXPECT_THAT(conflict.message(), HasSubstr("'R' is global here but per-device in model 'alpha'"));

  WriteConfig("alpha", IdentityConfig("alpha", asking(5)));
  ASSERT_TRUE(lifecycle_->Load("alpha", {}).ok());  // a reload
  EXPECT_EQ(limiter.Pool("R", 0).size, 5);
  WriteConfig("alpha", IdentityConfig("alpha", asking(3)));
  ASSERT_TRUE(lifecycle_->Load("alpha", {}).ok());
  EXPECT_EQ(limiter.Pool("R", 0).size, 3);  // the old version's 5 is gone with it

  ASSERT_TRUE(lifecycle_->Unload("alpha").ok());
  EXPECT_EQ(limiter.Pool("R", 0).size, -1);
  ASSERT_TRUE(lifecycle_->Load("beta", {}).ok());
  EXPECT_EQ(limiter.Pool("R", RateLimiter::kGlobal).size, 1);
  lifecycle_.reset();  // before the limiter goes
}

// An execution that waits for the rate limiter records the wait, in the
// model's (simulated) time, in rate_limiter_wait; it is part of the queue time.
TEST_F(ModelLifecycleTest, AnExecutionRecordsItsWaitForTheRateLimiter) {
  RateLimiter limiter({});
  rate_limiter_ = &limiter;
  int holder_owner = 0;
  auto holder = limiter.AddModel(&holder_owner, "the test", {{"holder", 0, 1, {{"R", 1}}}});
  ASSERT_TRUE(holder.ok());
  ASSERT_TRUE(limiter.Request((*holder)[0]));  // the test holds the one R
  WriteModel("alpha", {1},
             " instance_group [ { count: 1 kind: KIND_CPU rate_limiter { resources [ { name: "
             "\"R\" count: 1 } ] } } ]",
             0);
  Start(ModelControlMode::kExplicit);
  ASSERT_TRUE(lifecycle_->Load("alpha", {}).ok());
  std::shared_ptr<ModelVersion> alpha = Ready("alpha");
  ASSERT_NE(alpha, nullptr);
  {
    RequestFactory requests(alpha);
    alpha->OnRequestAdmitted();
    alpha->EnsureInstancesRunning();  // as the server does before it enqueues
    ASSERT_TRUE(alpha->scheduler().Enqueue(requests.Make("a", 1, {3})).ok());
    for (int i = 0; i < 10'000 && limiter.Waiting() == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // polls a state
    }
    ASSERT_EQ(limiter.Waiting(), 1u) << "the instance never waited for R";
    clock_.Advance(std::chrono::milliseconds(7));
    limiter.Release((*holder)[0]);
    ASSERT_TRUE(requests.log().AwaitReleases(1));
  }
  EXPECT_EQ(alpha->stats().rate_limiter_wait.count.load(), 1u);
  EXPECT_EQ(alpha->stats().rate_limiter_wait.ns.load(), 7'000'000u);
  EXPECT_EQ(alpha->stats().queue.ns.load(), 7'000'000u);
  alpha.reset();
  lifecycle_.reset();  // before the limiter goes
  limiter.RemoveModel(&holder_owner);
}

TEST_F(ModelLifecycleTest, ExplicitModeLoadsTheStartupModelsOnly) {
  WriteModel("alpha", {1});
  WriteModel("beta", {1});
  Start(ModelControlMode::kExplicit, {"beta", "ghost"});
  const std::vector<IndexEntry> index = lifecycle_->Index();
  EXPECT_THAT(States(index), ElementsAre("alpha/-1 ", "beta/1 READY", "ghost/-1 UNAVAILABLE"));
  EXPECT_THAT(Reason(index, "ghost", -1), HasSubstr("not in any model repository"));
  EXPECT_TRUE(lifecycle_->AllReady());  // never got past the repository
}

TEST_F(ModelLifecycleTest, ExplicitLoadOfABrokenConfigIsUnavailableWithTheReason) {
  WriteConfig("broken", "name: \"broken\" max_batch_size: [oops");
  repo_.MakeDir("broken/1");
  Start(ModelControlMode::kExplicit);

  const Status status = lifecycle_->Load("broken", {});
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_THAT(status.message(), HasSubstr("failed to load model 'broken'"));
  const std::vector<IndexEntry> index = lifecycle_->Index();
  EXPECT_THAT(States(index), ElementsAre("broken/-1 UNAVAILABLE"));
  EXPECT_THAT(Reason(index, "broken", -1),
              HasSubstr((repo_.path() / "broken" / "config.pbtxt").string()));
  EXPECT_TRUE(lifecycle_->AllReady());  // refused before the model lifecycle
}

TEST_F(ModelLifecycleTest, LoadAndUnloadOfAnUnknownModelAreNotFound) {
  Start(ModelControlMode::kExplicit);
  EXPECT_EQ(lifecycle_->Load("ghost", {}).code(), Status::Code::kNotFound);
  EXPECT_EQ(lifecycle_->Unload("ghost").code(), Status::Code::kNotFound);
  const auto missing = lifecycle_->Get("ghost", -1);
  EXPECT_EQ(missing.status().code(), Status::Code::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("unknown model"));
}

TEST_F(ModelLifecycleTest, UnloadTakesEveryVersionOutOfServiceAndSaysUnloaded) {
  WriteModel("alpha", {1, 2}, "version_policy: { all: {} }");
  Start(ModelControlMode::kExplicit, {"alpha"});
  ASSERT_THAT(lifecycle_->ReadyVersions("alpha"), ElementsAre(1, 2));

  ASSERT_TRUE(lifecycle_->Unload("alpha").ok());
  EXPECT_THAT(lifecycle_->ReadyVersions("alpha"), IsEmpty());
  EXPECT_THAT(lifecycle_->Loaded(), IsEmpty());
  const std::vector<IndexEntry> index = lifecycle_->Index();
  EXPECT_THAT(States(index), ElementsAre("alpha/-1 UNAVAILABLE"));
  EXPECT_EQ(Reason(index, "alpha", -1), "unloaded");
  const auto gone = lifecycle_->Get("alpha", 1);
  EXPECT_EQ(gone.status().code(), Status::Code::kUnavailable);
  EXPECT_THAT(gone.status().message(), HasSubstr("unloaded"));

  // And it loads again.
  ASSERT_TRUE(lifecycle_->Load("alpha", {}).ok());
  EXPECT_THAT(lifecycle_->ReadyVersions("alpha"), ElementsAre(1, 2));
}

// --- Reloads and the transition policies

TEST_F(ModelLifecycleTest, ASuccessfulReloadServesANewVersionObject) {
  WriteModel("alpha", {1});
  Start(ModelControlMode::kExplicit, {"alpha"});
  const std::shared_ptr<ModelVersion> before = Ready("alpha", 1);
  ASSERT_NE(before, nullptr);

  WriteConfig("alpha", IdentityConfig("alpha", "", /*max_batch_size=*/8));
  ASSERT_TRUE(lifecycle_->Load("alpha", {}).ok());
  const std::shared_ptr<ModelVersion> after = Ready("alpha", 1);
  ASSERT_NE(after, nullptr);
  EXPECT_NE(after, before);
  EXPECT_EQ(after->config().max_batch_size(), 8);
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("alpha/1 READY"));
}

TEST_F(ModelLifecycleTest, AFailedReloadKeepsThePreviousVersionServing) {
  WriteModel("alpha", {1});
  Start(ModelControlMode::kExplicit, {"alpha"});  // availability-preserving
  const std::shared_ptr<ModelVersion> serving = Ready("alpha", 1);

  WriteConfig("alpha", "name: \"alpha\" max_batch_size: [oops");
  const Status status = lifecycle_->Load("alpha", {});
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_THAT(status.message(), HasSubstr("failed to load model 'alpha'"));

  EXPECT_EQ(Ready("alpha", 1), serving);
  const std::vector<IndexEntry> index = lifecycle_->Index();
  EXPECT_THAT(States(index), ElementsAre("alpha/1 READY"));
  EXPECT_THAT(Reason(index, "alpha", 1),
              HasSubstr("reload failed, the previous version keeps serving"));
  EXPECT_THAT(Reason(index, "alpha", 1), HasSubstr("config.pbtxt"));
  EXPECT_TRUE(lifecycle_->AllReady());
}

TEST_F(ModelLifecycleTest, AFailedReloadUnderResourcePreservingLeavesNothingServing) {
  WriteModel("alpha", {1});
  Start(ModelControlMode::kExplicit, {"alpha"}, TransitionPolicy::kResourcePreserving);
  ASSERT_NE(Ready("alpha", 1), nullptr);

  WriteConfig("alpha", "name: \"alpha\" max_batch_size: [oops");
  EXPECT_EQ(lifecycle_->Load("alpha", {}).code(), Status::Code::kInvalidArg);
  EXPECT_THAT(lifecycle_->ReadyVersions("alpha"), IsEmpty());
  const std::vector<IndexEntry> index = lifecycle_->Index();
  EXPECT_THAT(States(index), ElementsAre("alpha/-1 UNAVAILABLE"));
  EXPECT_THAT(Reason(index, "alpha", -1), HasSubstr("config.pbtxt"));
  EXPECT_EQ(lifecycle_->Get("alpha", 1).status().code(), Status::Code::kUnavailable);
}

// --- Plain loads and config overrides (Triton's explicit-mode rules)

TEST_F(ModelLifecycleTest, APlainLoadOfAnUnchangedModelReloadsNothing) {
  WriteModel("alpha", {1});
  Start(ModelControlMode::kExplicit, {"alpha"});
  const std::shared_ptr<ModelVersion> before = Ready("alpha", 1);
  ASSERT_NE(before, nullptr);
  ASSERT_TRUE(lifecycle_->Load("alpha", {}).ok());
  EXPECT_EQ(Ready("alpha", 1), before);
}

TEST_F(ModelLifecycleTest, AConfigOverrideStaysInForceUntilTheModelFilesChange) {
  WriteModel("alpha", {1});
  Start(ModelControlMode::kExplicit, {"alpha"});
  LoadOverrides overrides;
  overrides.config_json = R"({"name": "alpha", "backend": "identity", "max_batch_size": 8,
      "input": [{"name": "INPUT0", "data_type": "TYPE_INT32", "dims": [3]}],
      "output": [{"name": "OUTPUT0", "data_type": "TYPE_INT32", "dims": [3]}]})";
  ASSERT_TRUE(lifecycle_->Load("alpha", overrides).ok());
  const std::shared_ptr<ModelVersion> overridden = Ready("alpha", 1);
  ASSERT_NE(overridden, nullptr);
  EXPECT_EQ(overridden->config().max_batch_size(), 8);

  // Files unchanged: a plain load keeps the override (nothing reloads).
  ASSERT_TRUE(lifecycle_->Load("alpha", {}).ok());
  EXPECT_EQ(Ready("alpha", 1), overridden);

  // config.pbtxt touched (same text, new modification time): read again.
  WriteConfig("alpha", IdentityConfig("alpha"));
  ASSERT_TRUE(lifecycle_->Load("alpha", {}).ok());
  const std::shared_ptr<ModelVersion> reread = Ready("alpha", 1);
  ASSERT_NE(reread, nullptr);
  EXPECT_NE(reread, overridden);
  EXPECT_EQ(reread->config().max_batch_size(), 4);

  // And from then on, unchanged again: nothing to do.
  ASSERT_TRUE(lifecycle_->Load("alpha", {}).ok());
  EXPECT_EQ(Ready("alpha", 1), reread);
}

TEST_F(ModelLifecycleTest, APlainLoadAfterAFailedReloadTriesAgain) {
  WriteModel("alpha", {1});
  Start(ModelControlMode::kExplicit, {"alpha"});
  LoadOverrides broken;
  broken.config_json = R"({"name": "alpha", "backend": "identity", "max_batch_size": 4})";
  EXPECT_FALSE(lifecycle_->Load("alpha", broken).ok());
  const std::shared_ptr<ModelVersion> kept = Ready("alpha", 1);
  // The files did not change, but the last load failed: a plain load loads.
  ASSERT_TRUE(lifecycle_->Load("alpha", {}).ok());
  EXPECT_NE(Ready("alpha", 1), kept);
  EXPECT_EQ(Reason(lifecycle_->Index(), "alpha", 1), "");
}


}  // namespace
}  // namespace inferd

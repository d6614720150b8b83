// The lifecycle with real model versions (model_lifecycle_fixture.h):
// ensembles loaded at start on several threads, and --model-namespacing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/test_util/model_lifecycle_fixture.h"

namespace inferd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// The start's loads run on several threads and publish once, at their end:
// an ensemble still finds the composing models that other threads loaded, and
// one whose composing model failed does not serve.
TEST_F(ModelLifecycleTest, AtStartEnsemblesFindTheComposingModelsOtherThreadsLoaded) {
  for (int i = 0; i < 6; ++i) {
    const std::string n = std::to_string(i);
    WriteIdentity(repo_, "m" + n, 3);  // "e*" sort first: ensembles race their models
    repo_.WriteFile("e" + n + "/config.pbtxt", EnsembleConfig("e" + n, "m" + n, 3));
    repo_.MakeDir("e" + n + "/1");
  }
  repo_.WriteFile("e_broken/config.pbtxt", EnsembleConfig("e_broken", "m_broken", 3));
  repo_.MakeDir("e_broken/1");
  WriteConfig("m_broken", "name: \"m_broken\" max_batch_size: [oops");
  repo_.MakeDir("m_broken/1");
  Start(ModelControlMode::kNone);

  for (int i = 0; i < 6; ++i) {
    const std::string n = std::to_string(i);
    EXPECT_NE(Ready("e" + n), nullptr) << "e" << n;
    EXPECT_NE(Ready("m" + n), nullptr) << "m" << n;
  }
  EXPECT_EQ(lifecycle_->Loaded().size(), 12u);
  const auto blocked = lifecycle_->Get("e_broken", -1);
  EXPECT_EQ(blocked.status().code(), Status::Code::kUnavailable);
  EXPECT_THAT(blocked.status().message(), HasSubstr("m_broken"));
}

TEST_F(ModelLifecycleTest, WithoutNamespacingTheSameNameInTwoRepositoriesIsUnavailable) {
  TempDir second;
  WriteIdentity(repo_, "shared", 3);
  WriteIdentity(second, "shared", 5);
  LifecycleOptions options;
  options.mode = ModelControlMode::kNone;
  options.source = std::make_shared<FolderSource>(
      std::vector<std::filesystem::path>{repo_.path(), second.path()});
  services_ = {.backends = &backends_, .clock = &clock_, .sweeper = &sweeper_};
  lifecycle_ = std::make_unique<ModelLifecycle>(ModelLoader({.services = &services_}), options);
  ASSERT_TRUE(lifecycle_->Start({}).ok());
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("shared/-1 UNAVAILABLE"));
  EXPECT_THAT(Reason(lifecycle_->Index(), "shared", -1), HasSubstr("more than one repository"));
  EXPECT_EQ(lifecycle_->Get("shared", -1).status().code(), Status::Code::kUnavailable);
}

TEST_F(ModelLifecycleTest, NamespacingLoadsBothAndRefusesTheAmbiguousName) {
  TempDir second;
  WriteIdentity(repo_, "shared", 3);
  WriteIdentity(repo_, "only_first", 3);
  WriteIdentity(second, "shared", 5);
  Start(ModelControlMode::kNone, {}, TransitionPolicy::kAvailabilityPreserving, second.path());

  EXPECT_THAT(States(lifecycle_->Index()),
              testing::UnorderedElementsAre("only_first/1 READY", "shared/1 READY",
                                            "shared/1 READY"));
  const auto ambiguous = lifecycle_->Get("shared", -1);
  EXPECT_EQ(ambiguous.status().code(), Status::Code::kInvalidArg);
  EXPECT_THAT(ambiguous.status().message(), HasSubstr("ambiguous"));
  EXPECT_THAT(ambiguous.status().message(), HasSubstr(second.path().string()));
  EXPECT_THAT(lifecycle_->ReadyVersions("shared"), IsEmpty());
  // A unique name is found as always; a namespace picks among the same names.
  EXPECT_NE(Ready("only_first"), nullptr);
  auto first = lifecycle_->Get("shared", -1, repo_.path().string());
  auto other = lifecycle_->Get("shared", -1, second.path().string());
  ASSERT_TRUE(first.ok() && other.ok());
  EXPECT_EQ((*first)->config().input(0).dims(0), 3);
  EXPECT_EQ((*other)->config().input(0).dims(0), 5);
  EXPECT_EQ(lifecycle_->Loaded().size(), 3u);
}

TEST_F(ModelLifecycleTest, NamespacedEnsemblesRunTheModelOfTheirOwnRepository) {
  TempDir second;
  WriteIdentity(repo_, "shared", 3);
  repo_.WriteFile("ens_first/config.pbtxt", EnsembleConfig("ens_first", "shared", 3));
  repo_.MakeDir("ens_first/1");
  WriteIdentity(second, "shared", 5);
  second.WriteFile("ens_second/config.pbtxt", EnsembleConfig("ens_second", "shared", 5));
  second.MakeDir("ens_second/1");
  // EXPLICIT: loading each ensemble loads its own repository's "shared" first
  // (the other one would not validate: its dims differ).
  Start(ModelControlMode::kExplicit, {}, TransitionPolicy::kAvailabilityPreserving,
        second.path());
  const Status first_load = lifecycle_->Load("ens_first", {});
  ASSERT_TRUE(first_load.ok()) << first_load.ToString();
  EXPECT_NE(Ready("ens_first"), nullptr);
  // Only one "shared" is loaded (and asked for): the name is not ambiguous.
  EXPECT_EQ(Ready("shared")->config().input(0).dims(0), 3);
  const Status second_load = lifecycle_->Load("ens_second", {});
  ASSERT_TRUE(second_load.ok()) << second_load.ToString();
  EXPECT_EQ(lifecycle_->Get("shared", -1).status().code(), Status::Code::kInvalidArg);
  std::shared_ptr<ModelVersion> first = Ready("ens_first");
  std::shared_ptr<ModelVersion> other = Ready("ens_second");
  ASSERT_NE(first, nullptr);
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(first->config().ensemble_scheduling().step(0).model_namespace(),
            repo_.path().string());
  EXPECT_EQ(other->config().ensemble_scheduling().step(0).model_namespace(),
            second.path().string());

  // unload_dependents takes the second repository's "shared" only.
  ASSERT_TRUE(lifecycle_->Unload("ens_second", /*unload_dependents=*/true).ok());
  EXPECT_NE(Ready("ens_first"), nullptr);
  EXPECT_TRUE(lifecycle_->Get("shared", -1, repo_.path().string()).ok());
  EXPECT_FALSE(lifecycle_->Get("shared", -1, second.path().string()).ok());
  EXPECT_EQ(Ready("shared")->config().input(0).dims(0), 3);
}

TEST_F(ModelLifecycleTest, NamespacedPollTellsTheRepositoriesApart) {
  TempDir second;
  WriteIdentity(repo_, "shared", 3);
  WriteIdentity(second, "shared", 5);
  Start(ModelControlMode::kPoll, {}, TransitionPolicy::kAvailabilityPreserving, second.path());
  ASSERT_EQ(lifecycle_->Get("shared", -1).status().code(), Status::Code::kInvalidArg);
  const std::shared_ptr<ModelVersion> first =
      lifecycle_->Get("shared", -1, repo_.path().string()).value();

  // The second repository's folder goes: only that model unloads.
  std::filesystem::remove_all(second.path() / "shared");
  lifecycle_->Poll();
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("shared/1 READY"));
  EXPECT_EQ(Ready("shared"), first);
  // And comes back as a new model of that repository (two polls: settle rule).
  WriteIdentity(second, "shared", 5);
  lifecycle_->Poll();
  lifecycle_->Poll();
  auto back = lifecycle_->Get("shared", -1, second.path().string());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ((*back)->config().input(0).dims(0), 5);
  EXPECT_EQ(lifecycle_->Get("shared", -1).status().code(), Status::Code::kInvalidArg);
}


}  // namespace
}  // namespace inferd

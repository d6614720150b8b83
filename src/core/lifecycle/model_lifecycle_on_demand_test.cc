// The lifecycle with a memory budget (LifecycleOptions::on_demand), with real
// identity model versions (model_lifecycle_fixture.h) and the FakeClock: what
// the start loads (nothing), the index's reasons, what OnDemandLoader's host
// calls do (load, evict, the loaded models' use, pins, ensembles), failed
// loads and polls.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/test_util/model_lifecycle_fixture.h"

namespace inferd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Optional;

class OnDemandLifecycleTest : public ModelLifecycleTest {
 protected:
  void StartOnDemand(ModelControlMode mode = ModelControlMode::kNone,
                     std::set<std::string> pinned = {}) {
    LifecycleOptions options;
    options.mode = mode;
    options.source = std::make_shared<FolderSource>(
        std::vector<std::filesystem::path>{repo_.path()}, false);
    options.on_demand = true;
    options.pinned = std::move(pinned);
    services_ = {.backends = &backends_, .clock = &clock_, .sweeper = &sweeper_,
                 .submitter = &submitter_, .rate_limiter = rate_limiter_};
    lifecycle_ = std::make_unique<ModelLifecycle>(ModelLoader({.services = &services_}), options);
    ASSERT_TRUE(lifecycle_->Start({"a"}).ok());  // --load-model is the server's business
  }
  const ResidentModel* Find(const std::vector<ResidentModel>& resident, const std::string& key) {
    for (const ResidentModel& model : resident) {
      if (model.key == key) return &model;
    }
    return nullptr;
  }
};

TEST_F(OnDemandLifecycleTest, TheStartLoadsNothingAndTheIndexSaysWhy) {
  WriteModel("a", {1});
  WriteModel("b", {1});
  StartOnDemand(ModelControlMode::kExplicit);
  const std::vector<IndexEntry> index = lifecycle_->Index();
  EXPECT_THAT(States(index), ElementsAre("a/-1 UNAVAILABLE", "b/-1 UNAVAILABLE"));
  EXPECT_EQ(Reason(index, "a", -1), kNotLoadedOnDemand);
  EXPECT_TRUE(index[0].loads_on_demand);
  EXPECT_TRUE(lifecycle_->AllReady());
  EXPECT_THAT(lifecycle_->OnDemandKey("a", {}), Optional(std::string("a")));
  EXPECT_EQ(lifecycle_->OnDemandKey("nope", {}), std::nullopt);
  EXPECT_EQ(lifecycle_->Get("a", -1).status().code(), Status::Code::kUnavailable);
  EXPECT_TRUE(lifecycle_->Resident().empty());
  EXPECT_GT(lifecycle_->EstimateBytes("a"), 0u);  // its config.pbtxt at least
}

TEST_F(OnDemandLifecycleTest, ALoadServesAndAnEvictionShowsItsReason) {
  WriteModel("a", {1});
  StartOnDemand();
  ASSERT_TRUE(lifecycle_->LoadOnDemand("a").ok());
  EXPECT_TRUE(lifecycle_->Serves("a"));
  EXPECT_EQ(lifecycle_->OnDemandKey("a", {}), std::nullopt);
  std::vector<ResidentModel> resident = lifecycle_->Resident();
  ASSERT_EQ(resident.size(), 1u);
  EXPECT_EQ(resident[0].last_used_ns, clock_.NowNs());  // its load
  EXPECT_FALSE(resident[0].busy || resident[0].pinned || resident[0].kept);

  std::shared_ptr<ModelVersion> version = Ready("a");
  clock_.Advance(std::chrono::milliseconds(5));
  version->NoteUsed(clock_.NowNs());
  ASSERT_TRUE(version->TryAdmit());  // a request in flight
  resident = lifecycle_->Resident();
  EXPECT_EQ(resident[0].last_used_ns, clock_.NowNs());
  EXPECT_TRUE(resident[0].busy);
  version->OnRequestReleased();
  version.reset();

  lifecycle_->Evict("a", "evicted for the test");
  EXPECT_FALSE(lifecycle_->Serves("a"));
  EXPECT_EQ(Reason(lifecycle_->Index(), "a", -1), "evicted for the test");
  EXPECT_THAT(lifecycle_->OnDemandKey("a", {}), Optional(std::string("a")));
  EXPECT_TRUE(lifecycle_->AllReady());
}

TEST_F(OnDemandLifecycleTest, PinsComeFromTheFlagTheConfigAndExplicitLoads) {
  WriteModel("flag", {1});
  WriteModel("config", {1}, R"(parameters { key: "inferd.pin" value { string_value: "true" } })");
  WriteModel("api", {1});
  WriteModel("plain", {1});
  StartOnDemand(ModelControlMode::kExplicit, {"flag"});
  for (const char* key : {"flag", "config", "api", "plain"}) {
    ASSERT_TRUE(lifecycle_->LoadOnDemand(key).ok()) << key;
  }
  lifecycle_->SetPinned("api", true);
  const std::vector<ResidentModel> resident = lifecycle_->Resident();
  EXPECT_TRUE(Find(resident, "flag")->pinned);
  EXPECT_TRUE(Find(resident, "config")->pinned);
  EXPECT_TRUE(Find(resident, "api")->pinned);
  EXPECT_FALSE(Find(resident, "plain")->pinned);
  // An unload unpins; the model loads on its next request again.
  ASSERT_TRUE(lifecycle_->Unload("api").ok());
  EXPECT_EQ(Reason(lifecycle_->Index(), "api", -1), "unloaded; loads again on its next request");
  ASSERT_TRUE(lifecycle_->LoadOnDemand("api").ok());
  EXPECT_FALSE(Find(lifecycle_->Resident(), "api")->pinned);
}

TEST_F(OnDemandLifecycleTest, ALoadedEnsembleKeepsItsComposingModels) {
  WriteIdentity(repo_, "step", 3);
  WriteConfig("ens", EnsembleConfig("ens", "step", 3));
  repo_.MakeDir("ens/1");
  StartOnDemand();
  EXPECT_THAT(lifecycle_->ComposingOf("ens"), ElementsAre("step"));
  ASSERT_TRUE(lifecycle_->LoadOnDemand("step").ok());
  EXPECT_FALSE(Find(lifecycle_->Resident(), "step")->kept);
  ASSERT_TRUE(lifecycle_->LoadOnDemand("ens").ok());
  EXPECT_TRUE(Find(lifecycle_->Resident(), "step")->kept);
  lifecycle_->Evict("ens", "evicted");
  EXPECT_FALSE(Find(lifecycle_->Resident(), "step")->kept);
}

TEST_F(OnDemandLifecycleTest, AFailedLoadIsRememberedAndLeavesTheServerReady) {
  WriteConfig("bad", "name: \"bad\" backend: \"identity\" max_batch_size: oops");
  StartOnDemand();
  const Status status = lifecycle_->LoadOnDemand("bad");
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(lifecycle_->OnDemandKey("bad", {}), std::nullopt);  // fails at once from now on
  EXPECT_THAT(lifecycle_->Get("bad", -1).status().message(), HasSubstr("not available"));
  EXPECT_TRUE(lifecycle_->AllReady());
}

TEST_F(OnDemandLifecycleTest, APollAddsNewModelsUnloadedAndForgetsRemovedOnes) {
  WriteModel("a", {1});
  StartOnDemand(ModelControlMode::kPoll);
  WriteModel("new", {1});
  lifecycle_->Poll();
  lifecycle_->Poll();
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("a/-1 UNAVAILABLE", "new/-1 UNAVAILABLE"));
  EXPECT_THAT(lifecycle_->OnDemandKey("new", {}), Optional(std::string("new")));
  std::filesystem::remove_all(repo_.path() / "a");
  lifecycle_->Poll();
  EXPECT_THAT(States(lifecycle_->Index()), ElementsAre("new/-1 UNAVAILABLE"));
}

}  // namespace
}  // namespace inferd

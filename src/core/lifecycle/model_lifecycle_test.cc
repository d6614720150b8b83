// The lifecycle with real model versions: identity models in a temporary
// repository, loaded through the identity backend. Control modes (NONE,
// EXPLICIT, POLL with Poll() called directly: no poller thread), the index
// states, version policies, and the two transition policies on a failed reload.
// Nothing here waits on time: no request is in flight, so unloading is at once.
#include "core/lifecycle/model_lifecycle.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/backend/backend_manager.h"
#include "core/common/logging.h"
#include "core/infer/request_submitter.h"
#include "core/model/model_version.h"
#include "core/scheduler/scheduler.h"
#include "core/rate_limiter/rate_limiter.h"
#include "core/test_util/request_factory.h"
#include "core/test_util/temp_dir.h"
#include "core/timing/fake_clock.h"
#include "core/timing/queue_sweeper.h"

namespace inferd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// config.pbtxt of identity model `name`, plus `extra` (a version policy, say).
std::string IdentityConfig(const std::string& name, const std::string& extra = "",
                           int max_batch_size = 4) {
  return "name: \"" + name + "\" backend: \"identity\" max_batch_size: " +
         std::to_string(max_batch_size) +
         R"( input [ { name: "INPUT0" data_type: TYPE_INT32 dims: [ 3 ] } ]
             output [ { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 3 ] } ] )" + extra;
}

// "name/version STATE" for each index row, in index order.
std::vector<std::string> States(const std::vector<IndexEntry>& index) {
  std::vector<std::string> states;
  for (const IndexEntry& entry : index) {
    states.push_back(entry.name + "/" + std::to_string(entry.version) + " " +
                     std::string(ModelStateName(entry.state)));
  }
  return states;
}

// The reason on the index row of `name` / `version`; "(no row)" if none.
std::string Reason(const std::vector<IndexEntry>& index, const std::string& name,
                   int64_t version) {
  for (const IndexEntry& entry : index) {
    if (entry.name == name && entry.version == version) return entry.reason;
  }
  return "(no row)";
}

// Ensembles load with it; no test here runs one.
class NoSubmitter final : public RequestSubmitter {
 public:
  Status Submit(InferenceRequest*) override { return Status::Unavailable("not in this test"); }
};

class ModelLifecycleTest : public testing::Test {
 protected:
  // Loads, unloads and the failures the tests provoke log at info and error
  // level; quiet here, restored after.
  void SetUp() override {
    LogSettings quiet = saved_log_settings_;
    quiet.info = false;
    quiet.error = false;
    ASSERT_TRUE(ConfigureLogging(quiet).ok());
  }
  void TearDown() override {
    lifecycle_.reset();
    EXPECT_TRUE(ConfigureLogging(saved_log_settings_).ok());
  }

  void Start(ModelControlMode mode, const std::vector<std::string>& startup_models = {},
             TransitionPolicy policy = TransitionPolicy::kAvailabilityPreserving,
             const std::filesystem::path& namespaced_second_repo = {}) {
    LifecycleOptions options;
    options.mode = mode;
    options.policy = policy;
    std::vector<std::filesystem::path> roots{repo_.path()};
    if (!namespaced_second_repo.empty()) {
      roots.push_back(namespaced_second_repo);
      options.namespacing = true;
    }
    options.source = std::make_shared<FolderSource>(roots, options.namespacing);
    options.load_threads = 2;
    LoaderContext context;
    context.backends = &backends_;
    context.sweeper = &sweeper_;
    context.submitter = &submitter_;
    context.rate_limiter = rate_limiter_;
    lifecycle_ = std::make_unique<ModelLifecycle>(ModelLoader(context), options);
    ASSERT_TRUE(lifecycle_->Start(startup_models).ok());
  }

  // Writes identity model `name` with `versions` (empty folders).
  void WriteModel(const std::string& name, const std::vector<int>& versions,
                  const std::string& extra = "", int max_batch_size = 4) {
    WriteConfig(name, IdentityConfig(name, extra, max_batch_size));
    for (int version : versions) repo_.MakeDir(name + "/" + std::to_string(version));
  }
  // Replaces `name`'s config.pbtxt. Its modification time is set to a new
  // value each time, so a poll sees the change even when the size is the same
  // and the file system's clock did not tick.
  void WriteConfig(const std::string& name, const std::string& text) {
    WriteFile(name + "/config.pbtxt", text);
  }
  void WriteFile(const std::string& relative, const std::string& text) {
    repo_.WriteFile(relative, text);
    static int64_t stamp = 0;
    std::filesystem::last_write_time(
        repo_.path() / relative,
        std::filesystem::file_time_type(std::chrono::seconds(1'600'000'000 + ++stamp)));
  }

  // The READY version `version` of `name`; null (and a failure) if none.
  std::shared_ptr<ModelVersion> Ready(const std::string& name, int64_t version = -1) {
    auto found = lifecycle_->Get(name, version);
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    return found.ok() ? found.value() : nullptr;
  }

  const LogSettings saved_log_settings_ = CurrentLogSettings();
  TempDir repo_;
  FakeClock clock_;
  QueueSweeper sweeper_{clock_};
  BackendManager backends_{INFERD_BINARY_DIR "/backends", {}};
  NoSubmitter submitter_;
  RateLimiter* rate_limiter_ = nullptr;  // set before Start(); outlives lifecycle_
  // Last: unloads everything first, while the backends and sweeper live.
  std::unique_ptr<ModelLifecycle> lifecycle_;
};

// --- NONE and EXPLICIT

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
  EXPECT_FALSE(lifecycle_->AllReady());  // broken should load and did not

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
  EXPECT_FALSE(lifecycle_->AllReady());
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
  EXPECT_FALSE(lifecycle_->AllReady());
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

// --- --model-namespacing

// An ensemble of one step running `model` (INPUT0 -> OUTPUT0, INT32 of `dims`).
std::string EnsembleConfig(const std::string& name, const std::string& model, int dims) {
  const std::string d = std::to_string(dims);
  return "name: \"" + name + "\" platform: \"ensemble\" max_batch_size: 4 "
         "input [ { name: \"X\" data_type: TYPE_INT32 dims: [ " + d + " ] } ] "
         "output [ { name: \"Y\" data_type: TYPE_INT32 dims: [ " + d + " ] } ] "
         "ensemble_scheduling { step [ { model_name: \"" + model + "\" model_version: -1 "
         "input_map { key: \"INPUT0\" value: \"X\" } "
         "output_map { key: \"OUTPUT0\" value: \"Y\" } } ] }";
}

// In `root`: identity model `name` of INT32 [dims].
void WriteIdentity(TempDir& root, const std::string& name, int dims) {
  const std::string d = std::to_string(dims);
  root.WriteFile(name + "/config.pbtxt",
                 "name: \"" + name + "\" backend: \"identity\" max_batch_size: 4 "
                 "input [ { name: \"INPUT0\" data_type: TYPE_INT32 dims: [ " + d + " ] } ] "
                 "output [ { name: \"OUTPUT0\" data_type: TYPE_INT32 dims: [ " + d + " ] } ]");
  root.MakeDir(name + "/1");
}

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
  LoaderContext context;
  context.backends = &backends_;
  context.sweeper = &sweeper_;
  lifecycle_ = std::make_unique<ModelLifecycle>(ModelLoader(context), options);
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
  EXPECT_FALSE(lifecycle_->AllReady());
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

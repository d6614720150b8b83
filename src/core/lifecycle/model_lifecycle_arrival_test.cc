// The start loads each model as soon as its own files are in place
// (ModelSource::MaterializeEach), while the others still download: a model
// whose files arrive last loads last, a failed download fails its model only,
// and the start (the server's readiness) waits for every model.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>

#include "core/test_util/model_lifecycle_fixture.h"

namespace inferd {
namespace {

using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

// The models of a folder, "downloaded" as a test scripts it: MaterializeEach
// reports them in `order`, `failing` ones with their error, and holds `held`
// back until LetGo(); so does a Materialize of `held` (as RepositorySource's
// waits for a copy in flight).
class ScriptedSource final : public ModelSource {
 public:
  ScriptedSource(const std::filesystem::path& root, std::vector<std::string> order,
                 std::string held, std::map<std::string, std::string> failing = {})
      : folder_({root}), order_(std::move(order)), held_(std::move(held)),
        failing_(std::move(failing)) {}

  StatusOr<std::vector<ModelLocation>> List() const override { return folder_.List(); }
  StatusOr<std::vector<ModelLocation>> Find(const std::string& name) const override {
    return folder_.Find(name);
  }
  ModelFingerprint Fingerprint(const ModelLocation& location) const override {
    return folder_.Fingerprint(location);
  }
  Status Materialize(const ModelLocation& location) const override {
    WaitIfHeld(location.name);
    return Outcome(location.name);
  }
  void MaterializeEach(const std::vector<ModelLocation>& locations,
                       const Arrived& arrived) const override {
    for (const std::string& name : order_) {
      for (size_t i = 0; i < locations.size(); ++i) {
        if (locations[i].name != name) continue;
        WaitIfHeld(name);
        arrived(i, Outcome(name));
      }
    }
  }

  void LetGo() {
    MutexLock lock(&mu_);
    let_go_ = true;
    changed_.SignalAll();
  }

 private:
  void WaitIfHeld(const std::string& name) const {
    MutexLock lock(&mu_);
    while (name == held_ && !let_go_) changed_.Wait(&mu_);
  }
  Status Outcome(const std::string& name) const {
    auto failed = failing_.find(name);
    return failed == failing_.end() ? Status::Ok() : Status::Unavailable(failed->second);
  }

  const FolderSource folder_;
  const std::vector<std::string> order_;
  const std::string held_;
  const std::map<std::string, std::string> failing_;
  mutable Mutex mu_;
  mutable CondVar changed_;
  bool let_go_ GUARDED_BY(mu_) = false;
};

class ModelLifecycleArrivalTest : public ModelLifecycleTest {
 protected:
  void TearDown() override {
    if (scripted_ != nullptr) scripted_->LetGo();
    if (starting_.joinable()) starting_.join();
    ModelLifecycleTest::TearDown();
  }

  void UseSource(std::vector<std::string> order, std::string held,
                 std::map<std::string, std::string> failing = {}) {
    scripted_ = std::make_shared<ScriptedSource>(repo_.path(), std::move(order), std::move(held),
                                                 std::move(failing));
    source_ = scripted_;
  }
  // Starts (NONE mode: every model) on a thread of its own.
  void StartInBackground() {
    MakeLifecycle(ModelControlMode::kNone);
    starting_ = std::thread([this] {
      EXPECT_TRUE(lifecycle_->Start({}).ok());
      started_ = true;
    });
  }
  // Whether the index comes to show `row` ("name/version STATE"). The minute
  // of real time is a failsafe against a start that never loads it: the row
  // comes at once when loads overlap downloads, and never when they do not.
  bool IndexComesToShow(const std::string& row) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (std::chrono::steady_clock::now() < deadline) {
      const std::vector<std::string> rows = States(lifecycle_->Index());
      if (std::find(rows.begin(), rows.end(), row) != rows.end()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
  }

  std::shared_ptr<ScriptedSource> scripted_;
  std::thread starting_;
  std::atomic<bool> started_{false};
};

TEST_F(ModelLifecycleArrivalTest, AModelWhoseFilesArriveLastLoadsLastAndTheStartWaitsForIt) {
  for (const char* name : {"a", "b", "c"}) WriteModel(name, {1});
  UseSource({"c", "a", "b"}, /*held=*/"b");
  load_threads_ = 1;  // loads in arrival order
  StartInBackground();

  ASSERT_TRUE(IndexComesToShow("c/1 READY"));
  ASSERT_TRUE(IndexComesToShow("a/1 READY"));
  EXPECT_THAT(States(lifecycle_->Index()),
              UnorderedElementsAre("a/1 READY", "b/-1 LOADING", "c/1 READY"));
  EXPECT_FALSE(started_);  // the server is not ready before b is: the start goes on

  scripted_->LetGo();
  starting_.join();
  EXPECT_THAT(States(lifecycle_->Index()),
              UnorderedElementsAre("a/1 READY", "b/1 READY", "c/1 READY"));
  EXPECT_TRUE(lifecycle_->AllReady());
  EXPECT_NE(Ready("b"), nullptr);
}

TEST_F(ModelLifecycleArrivalTest, AFailedDownloadFailsOnlyItsModel) {
  for (const char* name : {"a", "b", "c"}) WriteModel(name, {1});
  const std::string error =
      "model 'b': s3://bucket/repo: object 'b/1/model.bin': HTTP 403 AccessDenied";
  UseSource({"a", "b", "c"}, /*held=*/"", {{"b", error}});
  Start(ModelControlMode::kNone);

  EXPECT_THAT(States(lifecycle_->Index()),
              UnorderedElementsAre("a/1 READY", "b/-1 UNAVAILABLE", "c/1 READY"));
  EXPECT_THAT(Reason(lifecycle_->Index(), "b", -1), HasSubstr(error));
  EXPECT_THAT(lifecycle_->Get("b", -1).status().message(), HasSubstr("AccessDenied"));
  EXPECT_NE(Ready("a"), nullptr);
  EXPECT_NE(Ready("c"), nullptr);
}

TEST_F(ModelLifecycleArrivalTest, AnEnsembleArrivingBeforeItsComposingModelLoadsAfterIt) {
  WriteModel("a", {1});
  WriteIdentity(repo_, "step", 3);
  repo_.WriteFile("ens/config.pbtxt", EnsembleConfig("ens", "step", 3));
  repo_.MakeDir("ens/1");
  UseSource({"ens", "a", "step"}, /*held=*/"step");
  StartInBackground();

  // The ensemble's load waits for its step's files; another thread goes on.
  ASSERT_TRUE(IndexComesToShow("a/1 READY"));
  EXPECT_FALSE(started_);

  scripted_->LetGo();
  starting_.join();
  EXPECT_THAT(States(lifecycle_->Index()),
              UnorderedElementsAre("a/1 READY", "ens/1 READY", "step/1 READY"));
  EXPECT_TRUE(lifecycle_->AllReady());
}

}  // namespace
}  // namespace inferd

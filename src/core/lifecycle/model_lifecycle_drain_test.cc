// The lifecycle's drains in simulated time (model_lifecycle_fixture.h: the
// models' clock is a FakeClock): an unloaded or replaced version waits for its
// requests in flight, up to the drain timeout on that clock.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/test_util/model_lifecycle_fixture.h"

namespace inferd {
namespace {

using std::chrono::seconds;

class ModelLifecycleDrainTest : public ModelLifecycleTest {
 protected:
  // Model "alpha" loaded (EXPLICIT) with one request admitted to its version;
  // null (and a failure) if it did not load.
  std::shared_ptr<ModelVersion> LoadedWithARequestInFlight() {
    WriteModel("alpha", {1});
    Start(ModelControlMode::kExplicit);
    EXPECT_TRUE(lifecycle_->Load("alpha", {}).ok());
    std::shared_ptr<ModelVersion> alpha = Ready("alpha");
    if (alpha != nullptr) alpha->OnRequestAdmitted();
    return alpha;
  }
};

TEST_F(ModelLifecycleDrainTest, AnUnloadWaitsUntilTheRequestsInFlightAreReleased) {
  std::shared_ptr<ModelVersion> alpha = LoadedWithARequestInFlight();
  ASSERT_NE(alpha, nullptr);
  std::atomic<bool> unloaded{false};
  std::thread unloading([&] {
    EXPECT_TRUE(lifecycle_->Unload("alpha").ok());
    unloaded = true;
  });
  ASSERT_TRUE(clock_.AwaitWaiters(1));  // the drain waits on the clock
  EXPECT_FALSE(lifecycle_->Get("alpha", -1).ok());  // out of service already
  clock_.Advance(seconds(29));  // the drain timeout is 30 s
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  EXPECT_FALSE(unloaded.load());
  alpha->OnRequestReleased();
  unloading.join();
  EXPECT_TRUE(unloaded.load());
}

TEST_F(ModelLifecycleDrainTest, AnUnloadGivesUpOnRequestsInFlightAtTheDrainTimeout) {
  std::shared_ptr<ModelVersion> alpha = LoadedWithARequestInFlight();
  ASSERT_NE(alpha, nullptr);
  std::thread unloading([&] { EXPECT_TRUE(lifecycle_->Unload("alpha").ok()); });
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  clock_.Advance(seconds(30));
  unloading.join();
  EXPECT_EQ(alpha->inflight(), 1u);
  alpha->OnRequestReleased();
}

TEST_F(ModelLifecycleDrainTest, AReloadServesTheNewVersionWhileTheOldOneDrains) {
  std::shared_ptr<ModelVersion> old_version = LoadedWithARequestInFlight();
  ASSERT_NE(old_version, nullptr);
  LoadOverrides overrides;
  overrides.config_json = R"({"name": "alpha", "backend": "identity", "max_batch_size": 2,
      "input": [{"name": "INPUT0", "data_type": "TYPE_INT32", "dims": [3]}],
      "output": [{"name": "OUTPUT0", "data_type": "TYPE_INT32", "dims": [3]}]})";
  std::thread reloading([&] { EXPECT_TRUE(lifecycle_->Load("alpha", overrides).ok()); });
  ASSERT_TRUE(clock_.AwaitWaiters(1));  // the old version drains
  std::shared_ptr<ModelVersion> new_version = Ready("alpha");
  ASSERT_NE(new_version, nullptr);
  EXPECT_NE(new_version, old_version);
  EXPECT_EQ(new_version->config().max_batch_size(), 2);
  old_version->OnRequestReleased();
  reloading.join();
}

}  // namespace
}  // namespace inferd

// The fixture of the lifecycle's tests (model_lifecycle*_test.cc): identity
// models in a temporary repository, loaded through the identity backend with
// real model versions; the sweeper's clock is a FakeClock. Nothing waits on
// time: no request is in flight, so unloading is at once.
#ifndef INFERD_CORE_TEST_UTIL_MODEL_LIFECYCLE_FIXTURE_H_
#define INFERD_CORE_TEST_UTIL_MODEL_LIFECYCLE_FIXTURE_H_

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
#include "core/lifecycle/model_lifecycle.h"
#include "core/infer/request_submitter.h"
#include "core/model/model_version.h"
#include "core/scheduler/scheduler.h"
#include "core/rate_limiter/rate_limiter.h"
#include "core/test_util/request_factory.h"
#include "core/test_util/temp_dir.h"
#include "core/timing/fake_clock.h"
#include "core/timing/queue_sweeper.h"

namespace inferd {

// config.pbtxt of identity model `name`, plus `extra` (a version policy, say).
inline std::string IdentityConfig(const std::string& name, const std::string& extra = "",
                           int max_batch_size = 4) {
  return "name: \"" + name + "\" backend: \"identity\" max_batch_size: " +
         std::to_string(max_batch_size) +
         R"( input [ { name: "INPUT0" data_type: TYPE_INT32 dims: [ 3 ] } ]
             output [ { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 3 ] } ] )" + extra;
}

// "name/version STATE" for each index row, in index order.
inline std::vector<std::string> States(const std::vector<IndexEntry>& index) {
  std::vector<std::string> states;
  for (const IndexEntry& entry : index) {
    states.push_back(entry.name + "/" + std::to_string(entry.version) + " " +
                     std::string(ModelStateName(entry.state)));
  }
  return states;
}

// The reason on the index row of `name` / `version`; "(no row)" if none.
inline std::string Reason(const std::vector<IndexEntry>& index, const std::string& name,
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
    MakeLifecycle(mode, policy, namespaced_second_repo);
    ASSERT_TRUE(lifecycle_->Start(startup_models).ok());
  }
  // lifecycle_, not started; over `source_` when a test set one.
  void MakeLifecycle(ModelControlMode mode,
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
    options.source = source_ != nullptr
                         ? source_
                         : std::make_shared<FolderSource>(roots, options.namespacing);
    options.load_threads = load_threads_;
    services_ = {.backends = &backends_, .clock = &clock_, .sweeper = &sweeper_,
                 .submitter = &submitter_, .rate_limiter = rate_limiter_};
    lifecycle_ = std::make_unique<ModelLifecycle>(ModelLoader({.services = &services_}), options);
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
  std::shared_ptr<const ModelSource> source_;  // set before Start(); else the repo_ folder
  int load_threads_ = 2;                       // set before Start()
  ModelServices services_;  // what Start() lends the loader
  // Last: unloads everything first, while the backends and sweeper live.
  std::unique_ptr<ModelLifecycle> lifecycle_;
};

// An ensemble of one step running `model` (INPUT0 -> OUTPUT0, INT32 of `dims`).
inline std::string EnsembleConfig(const std::string& name, const std::string& model, int dims) {
  const std::string d = std::to_string(dims);
  return "name: \"" + name + "\" platform: \"ensemble\" max_batch_size: 4 "
         "input [ { name: \"X\" data_type: TYPE_INT32 dims: [ " + d + " ] } ] "
         "output [ { name: \"Y\" data_type: TYPE_INT32 dims: [ " + d + " ] } ] "
         "ensemble_scheduling { step [ { model_name: \"" + model + "\" model_version: -1 "
         "input_map { key: \"INPUT0\" value: \"X\" } "
         "output_map { key: \"OUTPUT0\" value: \"Y\" } } ] }";
}

// In `root`: identity model `name` of INT32 [dims].
inline void WriteIdentity(TempDir& root, const std::string& name, int dims) {
  const std::string d = std::to_string(dims);
  root.WriteFile(name + "/config.pbtxt",
                 "name: \"" + name + "\" backend: \"identity\" max_batch_size: 4 "
                 "input [ { name: \"INPUT0\" data_type: TYPE_INT32 dims: [ " + d + " ] } ] "
                 "output [ { name: \"OUTPUT0\" data_type: TYPE_INT32 dims: [ " + d + " ] } ]");
  root.MakeDir(name + "/1");
}

}  // namespace inferd

#endif  // INFERD_CORE_TEST_UTIL_MODEL_LIFECYCLE_FIXTURE_H_

// The manager of loaded models: which versions of which models are READY,
// which failed and why, and the lookup every inference request makes.
//
// Lookups read an immutable snapshot of the serving table through an atomic
// shared_ptr, so the request path takes no lock; changes (rare) rebuild the
// snapshot under mu_. Thread-safe.
#ifndef INFERD_CORE_LIFECYCLE_MODEL_LIFECYCLE_H_
#define INFERD_CORE_LIFECYCLE_MODEL_LIFECYCLE_H_

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/common/status.h"
#include "core/common/thread_annotations.h"
#include "core/lifecycle/model_loader.h"
#include "core/lifecycle/model_state.h"

namespace inferd {

class ModelVersion;

class ModelLifecycle {
 public:
  // `load_threads` models load in parallel.
  ModelLifecycle(ModelLoader loader, int load_threads);
  ~ModelLifecycle();

  // Loads every model of `models` (control mode NONE); failures are recorded.
  void LoadAll(const std::vector<ModelLocation>& models) EXCLUDES(mu_);

  // The READY version `version` of `name` (-1: the highest READY one).
  // NOT_FOUND for an unknown model or version; UNAVAILABLE, with the reason,
  // for one that failed to load.
  StatusOr<std::shared_ptr<ModelVersion>> Get(std::string_view name, int64_t version) const
      EXCLUDES(mu_);
  // READY versions of `name`, ascending; empty if none.
  std::vector<int64_t> ReadyVersions(std::string_view name) const;

  std::vector<IndexEntry> Index() const EXCLUDES(mu_);
  // Every READY version, by name then version.
  std::vector<std::shared_ptr<ModelVersion>> Loaded() const;
  // True when every model and version that should be loaded is READY.
  bool AllReady() const EXCLUDES(mu_);

  // Unloads everything, letting in-flight requests finish until `deadline`.
  void UnloadAll(std::chrono::steady_clock::time_point deadline) EXCLUDES(mu_);

 private:
  struct VersionRecord {
    ModelState state = ModelState::kLoading;
    std::string reason;
    std::shared_ptr<ModelVersion> model;
  };
  struct ModelRecord {
    std::string error;
    std::map<int64_t, VersionRecord> versions;
  };
  using ServingTable =
      std::map<std::string, std::map<int64_t, std::shared_ptr<ModelVersion>>, std::less<>>;

  void Record(ModelLoadResult result) EXCLUDES(mu_);
  void PublishLocked() REQUIRES(mu_);
  Status ExplainMissing(std::string_view name, int64_t version) const EXCLUDES(mu_);

  const ModelLoader loader_;
  const int load_threads_;

  mutable std::mutex mu_;
  std::map<std::string, ModelRecord, std::less<>> records_ GUARDED_BY(mu_);
  std::atomic<std::shared_ptr<const ServingTable>> serving_;
};

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_MODEL_LIFECYCLE_H_

// What the lifecycle knows of each model it was asked about (TF Serving's
// LoaderHarness, one per model rather than per version): the state and reason
// of each version, the files its serving versions came from, and the mutex
// that serializes its loads and unloads.
#ifndef INFERD_CORE_LIFECYCLE_MODEL_RECORD_H_
#define INFERD_CORE_LIFECYCLE_MODEL_RECORD_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "core/lifecycle/model_state.h"
#include "core/repository/model_fingerprint.h"
#include "inferd/base/mutex.h"

namespace inferd {

class ModelVersion;

struct VersionRecord {
  ModelState state = ModelState::kLoading;
  std::string reason;
  std::shared_ptr<ModelVersion> model;
  // Named by the version policy but without a folder: never loaded (Triton
  // skips it), so strict readiness does not count it (readiness.h).
  bool skipped = false;
};

struct ModelRecord {
  bool aspired = false;  // should be loaded
  // A load of it got past its configuration since it was last unloaded (as
  // far as Triton's model lifecycle): strict readiness counts it from then on
  // (readiness.h). A load refused before that leaves it as it was.
  bool in_lifecycle = false;
  std::string error;     // failure of the model as a whole
  std::map<int64_t, VersionRecord> versions;
  ModelFingerprint loaded_fingerprint;  // what the serving versions came from
  ModelFingerprint last_seen;           // what the last poll saw
  bool config_overridden = false;       // loaded with an API config or files
  bool files_overridden = false;        // loaded from "file:" overrides
  // With a memory budget: not loaded, and loads on its next request
  // (on_demand_loader.h); `idle_reason` says why it is not loaded (never
  // asked for, evicted, unloaded). Cleared when a load fails.
  bool on_demand = false;
  std::string idle_reason;
  bool pinned = false;  // loaded through the repository API: never evicted until unloaded
  std::filesystem::path override_dir;   // private folder of "file:" overrides
  std::shared_ptr<Mutex> op_mu = std::make_shared<Mutex>();
};

// By model key (ModelKey).
using ModelRecords = std::map<std::string, ModelRecord, std::less<>>;

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_MODEL_RECORD_H_

// The states a model version goes through, as the repository index reports
// them:
//
//   (aspired) --> LOADING --> READY --> UNLOADING --> (gone)
//                    |
//                    +--> UNAVAILABLE (reason)   a failed load; also a model
//                                                whose config or folder is bad
#ifndef INFERD_CORE_LIFECYCLE_MODEL_STATE_H_
#define INFERD_CORE_LIFECYCLE_MODEL_STATE_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace inferd {

enum class ModelState { kNotLoaded, kLoading, kReady, kUnloading, kUnavailable };

// "LOADING", "READY", "UNLOADING", "UNAVAILABLE"; "" for kNotLoaded (a model
// in the repository that nobody asked to load).
std::string_view ModelStateName(ModelState state);

// The reason the index gives for a model that loads on its first request
// (--model-memory-budget) and was never loaded.
inline constexpr char kNotLoadedOnDemand[] =
    "not loaded: loads on its first request (--model-memory-budget)";

// One row of the repository index.
struct IndexEntry {
  std::string name;
  int64_t version = -1;  // -1 when the failure concerns the whole model
  ModelState state = ModelState::kUnavailable;
  std::string reason;
  // Not loaded, and loads on its first request (--model-memory-budget): not a failure.
  bool loads_on_demand = false;
};

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_MODEL_STATE_H_

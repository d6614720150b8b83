// Which loaded models make room for a load under the model memory budget
// (--model-memory-budget): the least recently used ones that nothing holds
// (no request in flight or queued, not pinned, not run by a loaded ensemble,
// not part of the load itself). A pure function.
#ifndef INFERD_CORE_LIFECYCLE_EVICTION_POLICY_H_
#define INFERD_CORE_LIFECYCLE_EVICTION_POLICY_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace inferd {

// A loaded model as the budget sees it.
struct ResidentModel {
  std::string key;
  uint64_t bytes = 0;         // attributed at its load
  uint64_t last_used_ns = 0;  // its latest request (or its load), on the server's clock
  bool busy = false;          // a request in flight or queued
  bool pinned = false;        // --model-memory-pin, inferd.pin, or an explicit load
  bool kept = false;          // a loaded ensemble runs it
};

struct EvictionPlan {
  // The load fits once `victims` (least recently used first) are unloaded.
  bool fits = false;
  std::vector<std::string> victims;
  // When it does not fit: it never will while the pinned models stay
  // (`hopeless`), or it may once busy or kept models free up.
  bool hopeless = false;
  std::string why_not;  // names the bytes that hold the budget
};

// Plans room for `needed` bytes among `resident` within `budget` bytes;
// models in `exclude` (the load's own, an ensemble's composing models) stay.
EvictionPlan PlanEvictions(std::vector<ResidentModel> resident, uint64_t needed,
                           uint64_t budget, const std::set<std::string>& exclude);

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_EVICTION_POLICY_H_

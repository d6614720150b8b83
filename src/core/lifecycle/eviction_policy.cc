#include "core/lifecycle/eviction_policy.h"

#include <algorithm>

namespace inferd {

EvictionPlan PlanEvictions(std::vector<ResidentModel> resident, uint64_t needed,
                           uint64_t budget, const std::set<std::string>& exclude) {
  EvictionPlan plan;
  uint64_t used = 0, pinned = 0, busy = 0, kept = 0;
  for (const ResidentModel& model : resident) {
    used += model.bytes;
    if (model.pinned) {
      pinned += model.bytes;
    } else if (model.busy) {
      busy += model.bytes;
    } else if (model.kept || exclude.contains(model.key)) {
      kept += model.bytes;
    }
  }
  if (used + needed <= budget) {
    plan.fits = true;
    return plan;
  }
  std::sort(resident.begin(), resident.end(), [](const ResidentModel& a, const ResidentModel& b) {
    return a.last_used_ns != b.last_used_ns ? a.last_used_ns < b.last_used_ns : a.key < b.key;
  });
  for (const ResidentModel& model : resident) {
    if (model.pinned || model.busy || model.kept || exclude.contains(model.key)) continue;
    plan.victims.push_back(model.key);
    used -= model.bytes;
    if (used + needed <= budget) {
      plan.fits = true;
      return plan;
    }
  }
  plan.victims.clear();
  plan.hopeless = needed + pinned > budget;
  plan.why_not = "needs " + std::to_string(needed) + " bytes; the budget is " +
                 std::to_string(budget) + " bytes, of which pinned models hold " +
                 std::to_string(pinned) + ", models with requests in flight " +
                 std::to_string(busy) + ", models a loaded ensemble runs (or this load's own) " +
                 std::to_string(kept);
  return plan;
}

}  // namespace inferd

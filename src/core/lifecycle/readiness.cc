#include "core/lifecycle/readiness.h"

namespace inferd {

std::string HoldsBackReadiness(const ModelRecord& record) {
  // Unloaded (Triton: "unloaded" versions), never asked for, or refused
  // before its model lifecycle.
  if (!record.aspired || !record.in_lifecycle) return "";
  bool serves = false;
  for (const auto& [version, v] : record.versions) {
    if (v.skipped) continue;
    if (v.state != ModelState::kReady) {
      return "version " + std::to_string(version) + " is " +
             std::string(ModelStateName(v.state));
    }
    serves = true;
  }
  return serves ? "" : "no version to serve";
}

bool StrictlyReady(const ModelRecords& records) {
  for (const auto& [key, record] : records) {
    if (!HoldsBackReadiness(record).empty()) return false;
  }
  return true;
}

}  // namespace inferd

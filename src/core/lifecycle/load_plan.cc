#include "core/lifecycle/load_plan.h"

#include <algorithm>

namespace inferd {

const char kKeptPrevious[] = "reload failed, the previous version keeps serving: ";

namespace {

bool AllServeUnchanged(const CurrentLoad& current, const ModelFingerprint& now) {
  return !current.failed && !current.versions.empty() && !current.files_overridden &&
         now == current.fingerprint &&
         std::all_of(current.versions.begin(), current.versions.end(), [](const auto& entry) {
           return entry.second.loaded && entry.second.ready && entry.second.clean;
         });
}

// The serving versions whose folder is as it was at the last load, when
// config.pbtxt and the rest outside the version folders did not change.
std::set<int64_t> Unchanged(const CurrentLoad& current, const ModelFingerprint& now) {
  std::set<int64_t> unchanged;
  if (current.config_overridden || current.failed || now.top != current.fingerprint.top) {
    return unchanged;
  }
  for (const auto& [version, v] : current.versions) {
    auto files = now.versions.find(version);
    auto then = current.fingerprint.versions.find(version);
    if (v.loaded && v.ready && files != now.versions.end() &&
        then != current.fingerprint.versions.end() && files->second == then->second) {
      unchanged.insert(version);
    }
  }
  return unchanged;
}

}  // namespace

LoadPlan PlanLoad(const CurrentLoad& current, const ModelFingerprint& now, LoadKind kind,
                  TransitionPolicy policy) {
  LoadPlan plan;
  if (kind == LoadKind::kIfChanged && AllServeUnchanged(current, now)) {
    plan.nothing_to_do = true;
    return plan;
  }
  if (kind == LoadKind::kIfChanged || kind == LoadKind::kChangedVersions) {
    plan.reuse = Unchanged(current, now);
  }
  if (policy == TransitionPolicy::kResourcePreserving) {
    for (const auto& [version, v] : current.versions) {
      if (v.loaded && !plan.reuse.contains(version)) plan.retire_first.insert(version);
    }
  }
  return plan;
}

CurrentLoad CurrentLoadOf(const ModelRecord& record) {
  CurrentLoad current;
  current.failed = !record.error.empty();
  current.config_overridden = record.config_overridden;
  current.files_overridden = record.files_overridden;
  current.fingerprint = record.loaded_fingerprint;
  for (const auto& [version, v] : record.versions) {
    const bool loaded = v.model != nullptr;
    current.versions[version] = {loaded, loaded && v.state == ModelState::kReady, v.reason.empty()};
  }
  return current;
}

std::string MergeLoadedVersions(const std::vector<ModelLoadResult::Version>& loaded_versions,
                                std::map<int64_t, VersionRecord>* versions,
                                std::vector<std::shared_ptr<ModelVersion>>* retire) {
  std::map<int64_t, VersionRecord> next;
  std::string failures;
  for (const auto& loaded : loaded_versions) {
    VersionRecord& v = next[loaded.version];
    auto old = versions->find(loaded.version);
    if (loaded.model) {
      v.model = loaded.model;
      v.state = ModelState::kReady;
    } else if (old != versions->end() && old->second.model) {
      v = old->second;  // the previous load of this version keeps serving
      v.reason = kKeptPrevious + loaded.error;
      failures += (failures.empty() ? "" : "; ") + loaded.error;
    } else {
      v.state = ModelState::kUnavailable;
      v.reason = loaded.error;
      v.skipped = loaded.skipped;
      failures += (failures.empty() ? "" : "; ") + loaded.error;
    }
  }
  for (auto& [version, v] : *versions) {
    auto kept = next.find(version);
    if (v.model && (kept == next.end() || kept->second.model != v.model)) {
      retire->push_back(v.model);
    }
  }
  *versions = std::move(next);
  return failures;
}

}  // namespace inferd

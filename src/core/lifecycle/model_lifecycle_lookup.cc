// ModelLifecycle: the serving table's publication and what requests and the
// repository index read: versions, and why one is missing.
#include "core/lifecycle/model_lifecycle.h"
#include "core/lifecycle/readiness.h"
#include "core/model/model_version.h"

namespace inferd {

void ModelLifecycle::PublishLocked() {
  if (publish_deferred_) return;
  ServingSnapshot snapshot = BuildServingTable(records_);
  blocked_ensembles_ = std::move(snapshot.blocked);
  serving_.store(std::move(snapshot.table), std::memory_order_release);
  if (options_.namespacing) {
    keys_by_name_.store(BuildKeysByName(records_), std::memory_order_release);
  }
}

std::string ModelLifecycle::BlockedReasonLocked(const std::string& name, int64_t version) const {
  auto found = blocked_ensembles_.find({name, version});
  return found == blocked_ensembles_.end() ? "" : found->second;
}

StatusOr<std::shared_ptr<ModelVersion>> ModelLifecycle::Get(std::string_view name,
                                                            int64_t version,
                                                            std::string_view ns) const {
  if (!options_.namespacing) return GetByKey(name, version);  // the request path: no copy
  ASSIGN_OR_RETURN(std::string key, KeyOf(name, ns));
  return GetByKey(key, version);
}

StatusOr<std::shared_ptr<ModelVersion>> ModelLifecycle::GetByKey(std::string_view name,
                                                                 int64_t version) const {
  std::shared_ptr<const ServingTable> table = serving_.load(std::memory_order_acquire);
  auto model = table->find(name);
  if (model != table->end() && !model->second.empty()) {
    if (version < 0) return model->second.rbegin()->second;
    auto found = model->second.find(version);
    if (found != model->second.end()) return found->second;
  }
  return ExplainMissing(name, version);
}

StatusOr<std::shared_ptr<ModelVersion>> ModelLifecycle::LoadedByKey(const std::string& key,
                                                                     int64_t version) const {
  {
    MutexLock lock(&mu_);
    if (publish_deferred_) {
      auto record = records_.find(key);
      if (record != records_.end()) {
        const auto& versions = record->second.versions;
        for (auto v = versions.rbegin(); v != versions.rend(); ++v) {
          const bool wanted = version < 0 || v->first == version;
          if (wanted && v->second.model && v->second.state == ModelState::kReady) {
            return v->second.model;
          }
        }
      }
    }
  }
  return GetByKey(key, version);  // or why not
}

Status ModelLifecycle::ExplainMissing(std::string_view name, int64_t version) const {
  const std::string model = DescribeModelKey(name);
  MutexLock lock(&mu_);
  auto record = records_.find(name);
  if (record == records_.end()) {
    return Status::NotFound("unknown model: " + model + " is not in the repository");
  }
  if (!record->second.error.empty()) {
    return Status::Unavailable(model + " is not available: " + record->second.error);
  }
  if (record->second.versions.empty()) {
    return Status::Unavailable(model + " is not loaded");
  }
  if (version < 0) {
    std::string reasons;
    for (const auto& [v, rec] : record->second.versions) {
      std::string reason = BlockedReasonLocked(record->first, v);
      if (reason.empty()) reason = rec.reason;
      if (!reason.empty()) reasons += (reasons.empty() ? "" : "; ") + reason;
    }
    return Status::Unavailable(model + " has no ready version" +
                               (reasons.empty() ? "" : ": " + reasons));
  }
  auto found = record->second.versions.find(version);
  if (found == record->second.versions.end()) {
    return Status::NotFound("unknown version: " + model + " has no version " +
                            std::to_string(version));
  }
  if (std::string blocked = BlockedReasonLocked(record->first, version); !blocked.empty()) {
    return Status::Unavailable(model + " version " + std::to_string(version) +
                               " is not ready: " + blocked);
  }
  return Status::Unavailable(model + " version " + std::to_string(version) + " is " +
                             std::string(ModelStateName(found->second.state)) +
                             (found->second.reason.empty() ? "" : ": " + found->second.reason));
}

std::vector<int64_t> ModelLifecycle::ReadyVersions(std::string_view name) const {
  std::shared_ptr<const ServingTable> table = serving_.load(std::memory_order_acquire);
  std::vector<int64_t> versions;
  StatusOr<std::string> key = KeyOf(name, {});
  if (!key.ok()) return versions;
  auto model = table->find(*key);
  if (model == table->end()) return versions;
  for (const auto& [version, loaded] : model->second) versions.push_back(version);
  return versions;
}

std::vector<std::shared_ptr<ModelVersion>> ModelLifecycle::Loaded() const {
  std::shared_ptr<const ServingTable> table = serving_.load(std::memory_order_acquire);
  std::vector<std::shared_ptr<ModelVersion>> loaded;
  for (const auto& [name, versions] : *table) {
    for (const auto& [version, model] : versions) loaded.push_back(model);
  }
  return loaded;
}

std::vector<IndexEntry> ModelLifecycle::Index() const {
  std::vector<IndexEntry> index;
  MutexLock lock(&mu_);
  for (const auto& [key, record] : records_) {
    const std::string name = NameOfKey(key);  // the namespace is not shown (Triton)
    if (!record.error.empty()) {
      index.push_back({name, -1, ModelState::kUnavailable, record.error, false});
    } else if (record.versions.empty() && record.on_demand) {
      index.push_back({name, -1, ModelState::kUnavailable,
                       record.idle_reason.empty() ? kNotLoadedOnDemand : record.idle_reason,
                       true});
    } else if (record.versions.empty()) {
      index.push_back({name, -1,
                       record.aspired ? ModelState::kLoading : ModelState::kNotLoaded, "", false});
    }
    for (const auto& [version, v] : record.versions) {
      std::string blocked = BlockedReasonLocked(key, version);
      if (v.state == ModelState::kReady && !blocked.empty()) {
        index.push_back({name, version, ModelState::kUnavailable, std::move(blocked), false});
      } else {
        index.push_back({name, version, v.state, v.reason, false});
      }
    }
  }
  return index;
}

bool ModelLifecycle::AllReady() const {
  MutexLock lock(&mu_);
  return StrictlyReady(records_);
}

}  // namespace inferd

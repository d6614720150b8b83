// ModelLifecycle: unloading a model, retiring versions, and the unload of
// everything at the end.
#include <set>

#include "core/common/freed_memory.h"
#include "core/common/logging.h"
#include "core/lifecycle/ensemble_dependencies.h"
#include "core/lifecycle/model_lifecycle.h"
#include "core/lifecycle/override_folder.h"
#include "core/model/model_version.h"

namespace inferd {

Status ModelLifecycle::Unload(const std::string& name, bool unload_dependents) {
  std::vector<std::string> keys;
  if (options_.namespacing) {
    MutexLock lock(&mu_);
    for (const auto& [key, record] : records_) {
      if (NameOfKey(key) == name) keys.push_back(key);
    }
  }
  if (keys.empty()) keys.push_back(name);
  Status status;
  for (const std::string& key : keys) {
    status = UnloadKey(key, unload_dependents);
    if (!status.ok()) break;
  }
  ReturnFreedMemory();
  return status;
}

Status ModelLifecycle::UnloadKey(const std::string& key, bool unload_dependents) {
  std::set<std::string> composing;
  if (unload_dependents) {
    auto served = GetByKey(key, -1);
    if (served.ok() && (*served)->is_ensemble()) {
      for (const auto& step : (*served)->config().ensemble_scheduling().step()) {
        composing.insert(StepKey(step));
      }
    }
  }
  RETURN_IF_ERROR(DoUnload(key, false));
  for (const std::string& model : composing) {
    if (UsedByAnEnsemble(model)) continue;  // another ensemble still runs it
    LOG_INFO("unloading model '{}', which ensemble '{}' used (unload_dependents)", model, key);
    RETURN_IF_ERROR(UnloadKey(model, true));
  }
  return Status::Ok();
}

bool ModelLifecycle::UsedByAnEnsemble(const std::string& name) const {
  MutexLock lock(&mu_);
  for (const auto& [other, record] : records_) {
    for (const auto& [version, v] : record.versions) {
      if (!v.model || !v.model->is_ensemble()) continue;
      for (const auto& step : v.model->config().ensemble_scheduling().step()) {
        if (StepKey(step) == name) return true;
      }
    }
  }
  return false;
}

Status ModelLifecycle::DoUnload(const std::string& name, bool forget,
                                const std::string& idle_reason) {
  LOG_VERBOSE(1, "unloading model '{}'", name);
  std::shared_ptr<Mutex> op_mu;
  {
    MutexLock lock(&mu_);
    auto record = records_.find(name);
    if (record != records_.end()) op_mu = record->second.op_mu;
  }
  if (op_mu == nullptr) {
    // Never seen: fine if it is in a repository (nothing to unload), else unknown.
    RETURN_IF_ERROR(LocateAll(NameOfKey(name)).status());
    return Status::Ok();
  }
  MutexLock op_lock(op_mu.get());
  std::vector<std::shared_ptr<ModelVersion>> retire;
  {
    MutexLock lock(&mu_);
    ModelRecord& record = records_[name];
    record.aspired = false;
    record.in_lifecycle = false;
    if (options_.on_demand && !forget) {
      // From now on its requests wait for its next load, not fail.
      record.on_demand = true;
      record.pinned = false;
      record.idle_reason = idle_reason.empty() ? "unloaded; loads again on its next request"
                                               : idle_reason;
    }
    for (auto& [version, v] : record.versions) {
      if (v.model) retire.push_back(std::move(v.model));
      v.state = ModelState::kUnloading;
    }
    PublishLocked();
  }
  Retire(std::move(retire));
  std::filesystem::path override_dir;
  {
    MutexLock lock(&mu_);
    ModelRecord& record = records_[name];
    override_dir = std::exchange(record.override_dir, {});
    if (forget) {
      records_.erase(name);
    } else {
      record.versions.clear();
      record.error = record.on_demand ? "" : "unloaded";
      record.loaded_fingerprint = {};
      record.config_overridden = false;
      record.files_overridden = false;
    }
    PublishLocked();
  }
  RemoveOverrideFolder(override_dir);
  options_.source->Release(name);  // its cached copy (an object store's) may go
  LOG_INFO("unloaded {}{}", DescribeModelKey(name), idle_reason.empty() ? "" : ": " + idle_reason);
  return Status::Ok();
}

void ModelLifecycle::Retire(std::vector<std::shared_ptr<ModelVersion>> models) const {
  const uint64_t deadline_ns =
      clock_.NowNs() + std::chrono::nanoseconds(options_.drain_timeout).count();
  for (auto& model : models) model->Unload(deadline_ns);
}

void ModelLifecycle::UnloadAll(uint64_t deadline_ns) {
  // Outermost ensembles first, while the models they run still serve the
  // steps of the requests they finish; then the ensembles those ran, ...;
  // then every other model.
  for (bool last_round = false; !last_round;) {
    std::vector<std::shared_ptr<ModelVersion>> loaded;
    {
      MutexLock lock(&mu_);
      std::set<std::string> still_run;  // by a loaded ensemble
      for (const auto& [name, record] : records_) {
        for (const auto& [version, v] : record.versions) {
          if (!v.model || !v.model->is_ensemble()) continue;
          for (const auto& step : v.model->config().ensemble_scheduling().step()) {
            still_run.insert(StepKey(step));
          }
        }
      }
      auto outermost = [&](const std::string& name, const VersionRecord& v) {
        return v.model && v.model->is_ensemble() && !still_run.contains(name);
      };
      // None left (or, which validation rules out, only ensembles in a cycle):
      // everything goes.
      last_round = true;
      for (const auto& [name, record] : records_) {
        for (const auto& [version, v] : record.versions) {
          if (outermost(name, v)) last_round = false;
        }
      }
      for (auto& [name, record] : records_) {
        for (auto& [version, v] : record.versions) {
          if (v.model && (last_round || outermost(name, v))) {
            loaded.push_back(std::move(v.model));
            v.state = ModelState::kUnloading;
          }
        }
      }
      PublishLocked();
    }
    for (auto& model : loaded) model->Unload(deadline_ns);
  }
  MutexLock lock(&mu_);
  for (auto& [name, record] : records_) RemoveOverrideFolder(record.override_dir);
  records_.clear();
  PublishLocked();
}

}  // namespace inferd

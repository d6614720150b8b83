// ModelLifecycle: the load of one model (TF Serving's BasicManager loading a
// servable): plan it against what serves (load_plan.h), load the composing
// models an ensemble needs in their order (ensemble_dependencies.h), hand the
// folder to the loader, and swap the result in.
#include <algorithm>

#include "core/common/logging.h"
#include "core/config/model_platform.h"
#include "core/lifecycle/ensemble_dependencies.h"
#include "core/lifecycle/model_lifecycle.h"
#include "core/lifecycle/override_folder.h"
#include "core/model/model_version.h"

namespace inferd {

std::shared_ptr<Mutex> ModelLifecycle::OperationMutex(const std::string& name) {
  MutexLock lock(&mu_);
  return records_[name].op_mu;
}

Status ModelLifecycle::DoLoad(const std::string& name, ModelLocation location,
                              const LoadOverrides& overrides, LoadKind kind,
                              const StartPrep* prep, ComposingOutcomes* composed) {
  std::shared_ptr<Mutex> op_mu = OperationMutex(name);
  MutexLock op_lock(op_mu.get());
  // Loaded meanwhile as an ensemble's composing model.
  if (kind == LoadKind::kIfNotReady && LoadedByKey(name, -1).ok()) return Status::Ok();
  std::filesystem::path override_dir;
  if (!overrides.files.empty()) {
    ASSIGN_OR_RETURN(override_dir, WriteOverrideFolder(location.name, overrides.files));
    location.dir = override_dir / location.name;
  }
  LOG_VERBOSE(1, "loading {} from {}", DescribeModelKey(name), location.dir.string());
  const ModelFingerprint fingerprint =
      prep != nullptr ? prep->fingerprint : options_.source->Fingerprint(location);
  LoadRequest request{location, overrides.config_json, {}, {}, {}, nullptr};
  std::vector<std::shared_ptr<ModelVersion>> retire;
  if (!BeginLoad(name, fingerprint, kind, &request.reusable, &retire)) return Status::Ok();
  Retire(std::move(retire));
  retire.clear();
  request.prepared = prep != nullptr ? prep->load : PlanFolder(location, overrides);
  ComposingOutcomes own_outcomes;
  ComposingOutcomes* outcomes = composed != nullptr ? composed : &own_outcomes;
  if (composed == nullptr && request.prepared->plan.ok()) {
    LoadComposing(name, location.ns, request.prepared->plan.value(), request.reusable, outcomes);
  }
  BindComposing(location.ns, outcomes, &request);
  if (request.prepared->plan.ok()) NoteLoading(name, request.prepared->plan.value());
  ModelLoadResult result = loader_.Load(request);
  std::filesystem::path stale_override;
  Status outcome =
      FinishLoad(name, result, fingerprint, overrides, override_dir, &retire, &stale_override);
  Retire(std::move(retire));
  RemoveOverrideFolder(stale_override);
  return outcome;
}

std::shared_ptr<const PreparedLoad> ModelLifecycle::PlanFolder(
    const ModelLocation& location, const LoadOverrides& overrides) const {
  auto prepared = std::make_shared<PreparedLoad>();
  Status copied = options_.source->Materialize(location);  // an object store's model
  if (!copied.ok()) {
    prepared->plan = std::move(copied);
    return prepared;
  }
  prepared->plan = PlanModel(location, overrides.config_json, loader_.context().strict_config,
                             loader_.context().config_name);
  return prepared;
}

void ModelLifecycle::BindComposing(const std::string& ns, const ComposingOutcomes* outcomes,
                                   LoadRequest* request) const {
  request->composing = [this, outcomes, ns](
                           const std::string& step,
                           int64_t version) -> StatusOr<std::shared_ptr<ModelVersion>> {
    // With namespacing, the model of the ensemble's own repository first.
    const std::string key =
        options_.namespacing ? ModelKey(ComposingNamespace(ns, step), step) : step;
    auto outcome = outcomes->find(key);
    if (outcome != outcomes->end() && !outcome->second.ok()) return outcome->second;
    return LoadedByKey(key, version);
  };
  if (options_.namespacing) {
    request->step_namespace = [this, ns](const std::string& step) {
      return ComposingNamespace(ns, step);
    };
  }
}

bool ModelLifecycle::BeginLoad(const std::string& name, const ModelFingerprint& fingerprint,
                               LoadKind kind,
                               std::map<int64_t, std::shared_ptr<ModelVersion>>* reusable,
                               std::vector<std::shared_ptr<ModelVersion>>* retire) {
  MutexLock lock(&mu_);
  ModelRecord& record = records_[name];
  record.aspired = true;
  const LoadPlan plan =
      PlanLoad(CurrentLoadOf(record), fingerprint, kind, options_.policy);
  if (plan.nothing_to_do) {
    LOG_INFO("{}: its files did not change since it loaded{}, nothing to reload",
             DescribeModelKey(name),
             record.config_overridden ? " (with a config override, kept)" : "");
    return false;
  }
  for (int64_t version : plan.reuse) (*reusable)[version] = record.versions.at(version).model;
  if (!plan.retire_first.empty()) {
    for (int64_t version : plan.retire_first) {
      VersionRecord& v = record.versions.at(version);
      retire->push_back(std::move(v.model));
      v.state = ModelState::kUnloading;
    }
  }
  if (options_.policy == TransitionPolicy::kResourcePreserving) PublishLocked();
  return true;
}

void ModelLifecycle::LoadComposing(const std::string& name, const std::string& ns,
                                   const ModelPlan& plan,
                                   const std::map<int64_t, std::shared_ptr<ModelVersion>>& reused,
                                   ComposingOutcomes* outcomes) {
  if (plan.config.platform() != kEnsemblePlatform) return;
  // Only a version that loads looks at its composing models.
  if (std::all_of(plan.load.begin(), plan.load.end(),
                  [&](int64_t version) { return reused.contains(version); })) {
    return;
  }
  DependencyOrder order = OrderDependencies(
      name, ComposingKeys(ns, plan.config),
      [this](const std::string& key) { return StepsOfKey(key); },
      [this](const std::string& key) { return LoadedByKey(key, -1).ok(); });
  *outcomes = std::move(order.refused);
  for (const std::string& key : order.load) {
    StatusOr<ModelLocation> where = LocateKey(key);
    if (!where.ok()) {
      outcomes->emplace(key, where.status());
      continue;
    }
    LOG_INFO("loading {}, which an ensemble being loaded uses", DescribeModelKey(key));
    Status status = DoLoad(key, std::move(where).value(), {}, LoadKind::kIfNotReady, nullptr,
                           outcomes);
    outcomes->emplace(key, std::move(status));
  }
}

std::vector<std::string> ModelLifecycle::ComposingKeys(
    const std::string& ns, const inference::ModelConfig& config) const {
  std::vector<std::string> keys;
  for (const auto& step : config.ensemble_scheduling().step()) {
    keys.push_back(options_.namespacing
                       ? ModelKey(ComposingNamespace(ns, step.model_name()), step.model_name())
                       : step.model_name());
  }
  return keys;
}

std::vector<std::string> ModelLifecycle::StepsOfKey(const std::string& key) const {
  StatusOr<ModelLocation> location = LocateKey(key);
  if (!location.ok()) return {};  // its load reports it
  // An object store's model may still be downloading at start: wait for it.
  if (!options_.source->Materialize(*location).ok()) return {};  // as well
  StatusOr<ModelPlan> plan =
      PlanModel(*location, std::nullopt, true, loader_.context().config_name);
  if (!plan.ok() || plan->config.platform() != kEnsemblePlatform) return {};
  return ComposingKeys(location->ns, plan->config);
}

void ModelLifecycle::NoteLoading(const std::string& name, const ModelPlan& plan) {
  if (plan.config.platform() == kEnsemblePlatform) return;
  MutexLock lock(&mu_);
  ModelRecord& record = records_[name];
  record.in_lifecycle = true;
  for (int64_t version : plan.load) {
    VersionRecord& v = record.versions[version];
    if (v.model != nullptr) continue;  // serves (or retires) until the loader answers
    v = VersionRecord{ModelState::kLoading, "", nullptr, false};
  }
}

Status ModelLifecycle::FinishLoad(const std::string& name, const ModelLoadResult& result,
                                  const ModelFingerprint& fingerprint,
                                  const LoadOverrides& overrides,
                                  const std::filesystem::path& override_dir,
                                  std::vector<std::shared_ptr<ModelVersion>>* retire,
                                  std::filesystem::path* stale_override) {
  const std::string model = DescribeModelKey(name);
  if (!result.error.empty()) LOG_ERROR("failed to load {}: {}", model, result.error);
  for (const auto& version : result.versions) {
    if (!version.error.empty()) LOG_ERROR("failed to load {}", version.error);
  }
  Status outcome;
  MutexLock lock(&mu_);
  ModelRecord& record = records_[name];
  std::erase_if(record.versions,
                [](const auto& entry) { return entry.second.state == ModelState::kUnloading; });
  const bool old_serving = std::any_of(record.versions.begin(), record.versions.end(),
                                       [](const auto& e) { return e.second.model != nullptr; });
  if (!result.error.empty()) {
    if (old_serving) {
      for (auto& [version, v] : record.versions) v.reason = kKeptPrevious + result.error;
    } else {
      record.versions.clear();
      record.error = result.error;
    }
    outcome = Status::InvalidArg("failed to load " + model + ": " + result.error);
  } else {
    record.error.clear();
    const std::string failures = MergeLoadedVersions(result.versions, &record.versions, retire);
    if (!failures.empty()) {
      outcome = Status::InvalidArg("failed to load " + model + ": " + failures);
    }
  }
  if (result.reached_lifecycle) record.in_lifecycle = true;
  record.loaded_fingerprint = fingerprint;
  record.last_seen = fingerprint;
  record.config_overridden = overrides.config_json.has_value() || !overrides.files.empty();
  record.files_overridden = !overrides.files.empty();
  // A failed reload that keeps the previous versions keeps their files too.
  *stale_override = outcome.ok() || !old_serving
                        ? std::exchange(record.override_dir, override_dir)
                        : override_dir;
  PublishLocked();
  return outcome;
}

}  // namespace inferd

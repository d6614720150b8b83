#include "core/lifecycle/model_lifecycle.h"

#include <algorithm>
#include <set>
#include <thread>

#include "core/common/freed_memory.h"
#include "core/common/logging.h"
#include "core/config/model_platform.h"
#include "core/lifecycle/model_plan.h"
#include "core/lifecycle/override_folder.h"
#include "core/model/model_version.h"

namespace inferd {
namespace {

const char* kKeptPrevious = "reload failed, the previous version keeps serving: ";

// The key of the model an ensemble step runs (its namespace set by the loader
// with --model-namespacing).
template <typename Step>
std::string StepKey(const Step& step) {
  return ModelKey(step.model_namespace(), step.model_name());
}

// "model 'm'", or "model 'm' of repository '/r'" for a namespaced key.
std::string Describe(std::string_view key) {
  const std::string name = NameOfKey(std::string(key));
  if (name.size() == key.size()) return "model '" + name + "'";
  return "model '" + name + "' of repository '" +
         std::string(key.substr(0, key.size() - name.size() - 1)) + "'";
}

std::string Ambiguous(std::string_view name, const std::vector<std::string>& keys) {
  std::string repositories;
  for (const std::string& key : keys) {
    const std::string ns = key.substr(0, key.size() - std::min(key.size(), name.size() + 1));
    repositories += (repositories.empty() ? "'" : ", '") + ns + "'";
  }
  return "model '" + std::string(name) + "' is ambiguous: " + std::to_string(keys.size()) +
         " repositories hold a model of that name (" + repositories +
         ") and --model-namespacing keeps them apart; a request cannot choose one, an "
         "ensemble's steps run the model of the ensemble's own repository";
}

}  // namespace

std::string_view ModelStateName(ModelState state) {
  switch (state) {
    case ModelState::kNotLoaded: return "";
    case ModelState::kLoading: return "LOADING";
    case ModelState::kReady: return "READY";
    case ModelState::kUnloading: return "UNLOADING";
    case ModelState::kUnavailable: return "UNAVAILABLE";
  }
  return "UNAVAILABLE";
}

ModelLifecycle::ModelLifecycle(ModelLoader loader, LifecycleOptions options)
    : loader_(std::move(loader)),
      options_(std::move(options)),
      serving_(std::make_shared<const ServingTable>()),
      keys_by_name_(std::make_shared<const KeysByName>()) {}

ModelLifecycle::~ModelLifecycle() { UnloadAll(std::chrono::steady_clock::now()); }

Status ModelLifecycle::Start(const std::vector<std::string>& startup_models) {
  ASSIGN_OR_RETURN(std::vector<ModelLocation> models, options_.source->List());
  const bool explicit_mode = options_.mode == ModelControlMode::kExplicit;
  const bool load_all =
      !explicit_mode ||
      std::find(startup_models.begin(), startup_models.end(), "*") != startup_models.end();
  std::vector<std::string> to_load;
  {
    MutexLock lock(&mu_);
    for (const ModelLocation& location : models) {
      const std::string key = ModelKey(location.ns, location.name);
      records_[key];
      if (load_all) to_load.push_back(key);
    }
    if (!load_all) {
      for (const std::string& name : startup_models) {
        bool found = false;
        for (const ModelLocation& location : models) {
          if (location.name != name) continue;
          to_load.push_back(ModelKey(location.ns, location.name));
          found = true;
        }
        if (!found) {
          ModelRecord& record = records_[name];
          record.aspired = true;
          record.error = "model '" + name + "' (--load-model) is not in any model repository";
          LOG_ERROR("{}", record.error);
        }
      }
    }
    for (const std::string& name : to_load) records_[name].aspired = true;
    PublishLocked();
    publish_deferred_ = true;
  }
  std::map<std::string, StartPrep> prepared = PrepareStart(to_load, models);
  ForEachParallel(to_load, [&](const std::string& name) {
    const StartPrep& prep = prepared.at(name);
    // unless_ready: an ensemble loaded before may have loaded it already.
    Status status = DoLoad(name, prep.location, {}, false, true, false, &prep);
    (void)status;  // recorded in the index and logged
  });
  {
    MutexLock lock(&mu_);
    publish_deferred_ = false;
    PublishLocked();
  }
  ReturnFreedMemory();
  return Status::Ok();
}

std::map<std::string, ModelLifecycle::StartPrep> ModelLifecycle::PrepareStart(
    const std::vector<std::string>& names, const std::vector<ModelLocation>& models) const {
  const std::set<std::string> wanted(names.begin(), names.end());
  std::map<std::string, StartPrep> prepared;
  std::vector<std::string> keys;  // once each: --load-model may name a model twice
  for (const ModelLocation& location : models) {
    std::string key = ModelKey(location.ns, location.name);
    if (wanted.count(key) == 0 || prepared.count(key) != 0) continue;
    prepared[key].location = location;
    keys.push_back(std::move(key));
  }
  // Opening a backend takes a while (dlopen, its initialize): one thread at a
  // time does it while the others go on reading configs. A model whose
  // backends were not opened here acquires them when it loads.
  std::atomic<bool> opening{false};
  ForEachParallel(keys, [&](const std::string& name) {
    StartPrep& prep = prepared.at(name);  // each thread writes only its own entry
    prep.fingerprint = options_.source->Fingerprint(prep.location);
    const bool open = !opening.exchange(true, std::memory_order_acquire);
    prep.load = std::make_shared<const PreparedLoad>(loader_.Prepare(prep.location, open));
    if (open) opening.store(false, std::memory_order_release);
  });
  return prepared;
}

void ModelLifecycle::ForEachParallel(const std::vector<std::string>& names,
                                     const std::function<void(const std::string&)>& work) const {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < names.size(); i = next++) work(names[i]);
  };
  const size_t thread_count = std::min<size_t>(std::max(1, options_.load_threads), names.size());
  std::vector<std::thread> threads;
  for (size_t t = 1; t < thread_count; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& thread : threads) thread.join();
}

Status ModelLifecycle::CheckNoEnsembleCycle(std::vector<std::string>* chain,
                                            std::set<std::string>* seen) const {
  const std::string name = chain->back();
  if (!seen->insert(name).second) return Status::Ok();
  StatusOr<ModelLocation> location = LocateKey(name);
  if (!location.ok()) return Status::Ok();  // its load reports it
  StatusOr<ModelPlan> plan = PlanModel(*location, std::nullopt, true, loader_.context().config_name);
  if (!plan.ok() || plan->config.platform() != kEnsemblePlatform) return Status::Ok();
  for (const auto& step : plan->config.ensemble_scheduling().step()) {
    const std::string step_key =
        options_.namespacing
            ? ModelKey(ComposingNamespace(location->ns, step.model_name()), step.model_name())
            : step.model_name();
    if (std::find(chain->begin(), chain->end(), step_key) != chain->end()) {
      std::string text;
      for (const std::string& model : *chain) text += "'" + model + "' -> ";
      return Status::InvalidArg("ensembles form a cycle: " + text + "'" + step_key + "'");
    }
    chain->push_back(step_key);
    Status status = CheckNoEnsembleCycle(chain, seen);
    chain->pop_back();
    RETURN_IF_ERROR(status);
  }
  return Status::Ok();
}

StatusOr<std::vector<ModelLocation>> ModelLifecycle::LocateAll(const std::string& name) const {
  ASSIGN_OR_RETURN(std::vector<ModelLocation> found, options_.source->Find(name));
  if (found.empty()) return Status::NotFound("model '" + name + "' is not in any model repository");
  return found;
}

StatusOr<ModelLocation> ModelLifecycle::Locate(const std::string& name,
                                               const std::string& ns) const {
  ASSIGN_OR_RETURN(std::vector<ModelLocation> found, LocateAll(name));
  std::vector<std::string> keys;
  for (ModelLocation& location : found) {
    if (location.ns == ns) return std::move(location);
    keys.push_back(ModelKey(location.ns, location.name));
  }
  if (found.size() == 1) return std::move(found.front());
  return Status::InvalidArg(Ambiguous(name, keys));
}

StatusOr<ModelLocation> ModelLifecycle::LocateKey(const std::string& key) const {
  ASSIGN_OR_RETURN(std::vector<ModelLocation> found, LocateAll(NameOfKey(key)));
  for (ModelLocation& location : found) {
    if (ModelKey(location.ns, location.name) == key) return std::move(location);
  }
  return Status::NotFound(Describe(key) + " is not in its model repository");
}

StatusOr<std::string> ModelLifecycle::KeyOf(std::string_view name, std::string_view ns) const {
  if (!options_.namespacing) return std::string(name);
  std::shared_ptr<const KeysByName> index = keys_by_name_.load(std::memory_order_acquire);
  auto found = index->find(name);
  if (found == index->end()) return std::string(name);
  const std::vector<std::string>& live = found->second.live;
  if (!ns.empty()) {
    const std::string preferred = ModelKey(std::string(ns), std::string(name));
    const std::vector<std::string>& all = found->second.all;
    if (std::find(all.begin(), all.end(), preferred) != all.end()) return preferred;
  }
  if (live.size() == 1) return live.front();
  if (live.empty()) return found->second.all.front();  // none loaded: says so
  return Status::InvalidArg(Ambiguous(name, live));
}

std::string ModelLifecycle::ComposingNamespace(const std::string& ns,
                                               const std::string& step) const {
  StatusOr<ModelLocation> where = Locate(step, ns);
  if (where.ok()) return where->ns;
  StatusOr<std::string> key = KeyOf(step, ns);  // loaded, its folder gone since
  if (key.ok() && key->size() > step.size()) return key->substr(0, key->size() - step.size() - 1);
  return ns;
}

std::shared_ptr<Mutex> ModelLifecycle::OperationMutex(const std::string& name) {
  MutexLock lock(&mu_);
  return records_[name].op_mu;
}

Status ModelLifecycle::Load(const std::string& name, const LoadOverrides& overrides) {
  Status status = LoadLocations(name, overrides);
  ReturnFreedMemory();
  return status;
}

Status ModelLifecycle::LoadLocations(const std::string& name, const LoadOverrides& overrides) {
  if (!overrides.files.empty()) {
    if (!overrides.config_json) {
      return Status::InvalidArg("model '" + name +
                                "': file overrides need a 'config' parameter as well");
    }
    return DoLoad(name, ModelLocation{name, {}, "", ""}, overrides, false);
  }
  ASSIGN_OR_RETURN(std::vector<ModelLocation> locations, LocateAll(name));
  // A plain load changes nothing unless the files did (Triton).
  const bool plain = !overrides.config_json.has_value();
  Status outcome;
  for (ModelLocation& location : locations) {
    const std::string key = ModelKey(location.ns, location.name);
    Status status = DoLoad(key, std::move(location), overrides, plain, false, plain);
    if (outcome.ok()) outcome = std::move(status);
  }
  return outcome;
}

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

Status ModelLifecycle::DoLoad(const std::string& name, ModelLocation location,
                              const LoadOverrides& overrides, bool reuse_unchanged,
                              bool unless_ready, bool unless_unchanged, const StartPrep* prep) {
  std::shared_ptr<Mutex> op_mu = OperationMutex(name);
  MutexLock op_lock(op_mu.get());
  // Loaded meanwhile as an ensemble's composing model.
  if (unless_ready && LoadedByKey(name, -1).ok()) return Status::Ok();
  // This thread loads `name` until the end of this call: an ensemble among
  // the models it loads first that needs `name` again is a cycle, not a wait.
  thread_local std::vector<std::string> loading;
  loading.push_back(name);
  struct PopOnExit {
    ~PopOnExit() { loading.pop_back(); }
  } pop_on_exit;
  std::filesystem::path override_dir;
  if (!overrides.files.empty()) {
    ASSIGN_OR_RETURN(override_dir, WriteOverrideFolder(location.name, overrides.files));
    location.dir = override_dir / location.name;
  }
  LOG_VERBOSE(1, "loading {} from {}", Describe(name), location.dir.string());
  const ModelFingerprint fingerprint =
      prep != nullptr ? prep->fingerprint : options_.source->Fingerprint(location);
  LoadRequest request{location, overrides.config_json, {}, {}, {},
                      prep != nullptr ? prep->load : nullptr};
  request.composing = [this, ns = location.ns](
                          const std::string& name,
                          int64_t version) -> StatusOr<std::shared_ptr<ModelVersion>> {
    // With namespacing, the model of the ensemble's own repository first.
    const std::string composing =
        options_.namespacing ? ModelKey(ComposingNamespace(ns, name), name) : name;
    if (std::find(loading.begin(), loading.end(), composing) != loading.end()) {
      std::string chain;
      for (const std::string& model : loading) chain += "'" + model + "' -> ";
      return Status::InvalidArg("ensembles form a cycle: " + chain + "'" + composing + "'");
    }
    if (!LoadedByKey(composing, -1).ok()) {
      ASSIGN_OR_RETURN(ModelLocation where, LocateKey(composing));
      // Before waiting on its operation mutex: another thread loading an
      // ensemble of the same cycle would wait on ours.
      std::vector<std::string> chain = loading;
      chain.push_back(composing);
      std::set<std::string> seen;
      RETURN_IF_ERROR(CheckNoEnsembleCycle(&chain, &seen));
      LOG_INFO("loading {}, which an ensemble being loaded uses", Describe(composing));
      RETURN_IF_ERROR(DoLoad(composing, std::move(where), {}, false, true));
    }
    return LoadedByKey(composing, version);
  };
  if (options_.namespacing) {
    request.step_namespace = [this, ns = location.ns](const std::string& step) {
      return ComposingNamespace(ns, step);
    };
  }
  std::vector<std::shared_ptr<ModelVersion>> retire;
  {
    MutexLock lock(&mu_);
    ModelRecord& record = records_[name];
    record.aspired = true;
    if (unless_unchanged && record.error.empty() && !record.versions.empty() &&
        !record.files_overridden && fingerprint == record.loaded_fingerprint &&
        std::all_of(record.versions.begin(), record.versions.end(), [](const auto& entry) {
          return entry.second.model != nullptr && entry.second.state == ModelState::kReady &&
                 entry.second.reason.empty();
        })) {
      LOG_INFO("{}: its files did not change since it loaded{}, nothing to reload",
               Describe(name), record.config_overridden ? " (with a config override, kept)" : "");
      return Status::Ok();
    }
    if (reuse_unchanged && !record.config_overridden && record.error.empty() &&
        fingerprint.top == record.loaded_fingerprint.top) {
      for (auto& [version, v] : record.versions) {
        auto now = fingerprint.versions.find(version);
        auto then = record.loaded_fingerprint.versions.find(version);
        if (v.model && v.state == ModelState::kReady && now != fingerprint.versions.end() &&
            then != record.loaded_fingerprint.versions.end() && now->second == then->second) {
          request.reusable[version] = v.model;
        }
      }
    }
    if (options_.policy == TransitionPolicy::kResourcePreserving) {
      for (auto& [version, v] : record.versions) {
        if (v.model && !request.reusable.count(version)) {
          retire.push_back(std::move(v.model));
          v.state = ModelState::kUnloading;
        }
      }
      PublishLocked();
    }
  }
  Retire(std::move(retire));
  retire.clear();

  ModelLoadResult result = loader_.Load(request);
  if (!result.error.empty()) LOG_ERROR("failed to load {}: {}", Describe(name), result.error);
  for (const auto& version : result.versions) {
    if (!version.error.empty()) LOG_ERROR("failed to load {}", version.error);
  }

  Status outcome;
  std::filesystem::path stale_override;
  {
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
      outcome = Status::InvalidArg("failed to load " + Describe(name) + ": " + result.error);
    } else {
      record.error.clear();
      const std::string failures = MergeVersions(result.versions, &record.versions, &retire);
      if (!failures.empty()) {
        outcome = Status::InvalidArg("failed to load " + Describe(name) + ": " + failures);
      }
    }
    record.loaded_fingerprint = fingerprint;
    record.last_seen = fingerprint;
    record.config_overridden = overrides.config_json.has_value() || !overrides.files.empty();
    record.files_overridden = !overrides.files.empty();
    if (outcome.ok() || !old_serving) {
      stale_override = std::exchange(record.override_dir, override_dir);
    } else {
      stale_override = override_dir;
    }
    PublishLocked();
  }
  Retire(std::move(retire));
  RemoveOverrideFolder(stale_override);
  return outcome;
}

std::string ModelLifecycle::MergeVersions(
    const std::vector<ModelLoadResult::Version>& loaded_versions,
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

Status ModelLifecycle::DoUnload(const std::string& name, bool forget) {
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
  {
  }
  MutexLock op_lock(op_mu.get());
  std::vector<std::shared_ptr<ModelVersion>> retire;
  {
    MutexLock lock(&mu_);
    ModelRecord& record = records_[name];
    record.aspired = false;
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
      record.error = "unloaded";
      record.loaded_fingerprint = {};
      record.config_overridden = false;
      record.files_overridden = false;
    }
    PublishLocked();
  }
  RemoveOverrideFolder(override_dir);
  LOG_INFO("unloaded {}", Describe(name));
  return Status::Ok();
}

void ModelLifecycle::Poll() {
  auto scanned = options_.source->List();
  if (!scanned.ok()) {
    LOG_ERROR("repository poll failed: {}", scanned.status().message());
    return;
  }
  std::map<std::string, std::pair<ModelLocation, ModelFingerprint>> present;
  for (ModelLocation& location : *scanned) {
    ModelFingerprint fingerprint = options_.source->Fingerprint(location);
    std::string name = ModelKey(location.ns, location.name);
    present.emplace(std::move(name), std::make_pair(std::move(location), std::move(fingerprint)));
  }
  std::vector<std::string> to_load, removed;
  {
    MutexLock lock(&mu_);
    for (auto& [name, found] : present) {
      ModelRecord& record = records_[name];
      record.aspired = true;
      const ModelFingerprint& now = found.second;
      const bool never_loaded = record.versions.empty() && record.error.empty();
      if (now == record.loaded_fingerprint && !never_loaded) continue;
      if (now == record.last_seen) {
        to_load.push_back(name);  // unchanged since the last poll: settled
      } else {
        record.last_seen = now;   // still changing, or just appeared: wait a poll
      }
    }
    for (const auto& [name, record] : records_) {
      if (!present.count(name)) removed.push_back(name);
    }
  }
  ForEachParallel(to_load, [&](const std::string& name) {
    LOG_INFO("repository poll: (re)loading model '{}'", name);
    Status status = DoLoad(name, present.at(name).first, {}, true);
    (void)status;  // recorded in the index and logged
  });
  for (const std::string& name : removed) {
    LOG_INFO("repository poll: model '{}' was removed", name);
    Status status = DoUnload(name, true);
    (void)status;
  }
  if (!to_load.empty() || !removed.empty()) ReturnFreedMemory();
}

void ModelLifecycle::Retire(std::vector<std::shared_ptr<ModelVersion>> models) const {
  const auto deadline = std::chrono::steady_clock::now() + options_.drain_timeout;
  for (auto& model : models) model->Unload(deadline);
}

namespace {

bool Serves(const std::map<std::string, std::map<int64_t, std::shared_ptr<ModelVersion>>,
                           std::less<>>& table,
            const std::string& name, int64_t version) {
  auto model = table.find(name);
  if (model == table.end() || model->second.empty()) return false;
  return version < 0 || model->second.contains(version);
}

// Why ensemble `model` cannot serve from `table`: the first composing model
// its steps run that the table lacks; empty when it can.
std::string MissingComposing(const ModelVersion& model,
                             const std::map<std::string,
                                            std::map<int64_t, std::shared_ptr<ModelVersion>>,
                                            std::less<>>& table) {
  const auto& steps = model.config().ensemble_scheduling().step();
  for (int i = 0; i < steps.size(); ++i) {
    if (!Serves(table, StepKey(steps[i]), steps[i].model_version())) {
      return "composing model '" + steps[i].model_name() + "' (step[" + std::to_string(i) +
             "]) is not ready";
    }
  }
  return "";
}

}  // namespace

void ModelLifecycle::PublishLocked() {
  if (publish_deferred_) return;
  auto table = std::make_shared<ServingTable>();
  for (const auto& [name, record] : records_) {
    for (const auto& [version, v] : record.versions) {
      if (v.model && v.state == ModelState::kReady) (*table)[name][version] = v.model;
    }
  }
  // An ensemble serves only while every model its steps run does; removing
  // one may stop an ensemble that nests it, hence the loop.
  blocked_ensembles_.clear();
  for (bool changed = true; changed;) {
    changed = false;
    for (auto model = table->begin(); model != table->end();) {
      for (auto version = model->second.begin(); version != model->second.end();) {
        const std::string missing =
            version->second->is_ensemble() ? MissingComposing(*version->second, *table) : "";
        if (missing.empty()) {
          ++version;
          continue;
        }
        blocked_ensembles_[{model->first, version->first}] = missing;
        version = model->second.erase(version);
        changed = true;
      }
      model = model->second.empty() ? table->erase(model) : std::next(model);
    }
  }
  serving_.store(std::move(table), std::memory_order_release);
  if (options_.namespacing) {
    auto index = std::make_shared<KeysByName>();
    for (const auto& [key, record] : records_) {
      NameKeys& keys = (*index)[NameOfKey(key)];
      keys.all.push_back(key);
      if (record.aspired || !record.versions.empty()) keys.live.push_back(key);
    }
    keys_by_name_.store(std::move(index), std::memory_order_release);
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
  const std::string model = Describe(name);
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
      index.push_back({name, -1, ModelState::kUnavailable, record.error});
    } else if (record.versions.empty()) {
      index.push_back({name, -1,
                       record.aspired ? ModelState::kLoading : ModelState::kNotLoaded, ""});
    }
    for (const auto& [version, v] : record.versions) {
      std::string blocked = BlockedReasonLocked(key, version);
      if (v.state == ModelState::kReady && !blocked.empty()) {
        index.push_back({name, version, ModelState::kUnavailable, std::move(blocked)});
      } else {
        index.push_back({name, version, v.state, v.reason});
      }
    }
  }
  return index;
}

bool ModelLifecycle::AllReady() const {
  MutexLock lock(&mu_);
  for (const auto& [name, record] : records_) {
    if (!record.aspired) continue;
    if (!record.error.empty() || record.versions.empty()) return false;
    for (const auto& [version, v] : record.versions) {
      if (v.state != ModelState::kReady) return false;
    }
  }
  return blocked_ensembles_.empty();
}

void ModelLifecycle::UnloadAll(std::chrono::steady_clock::time_point deadline) {
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
    for (auto& model : loaded) model->Unload(deadline);
  }
  MutexLock lock(&mu_);
  for (auto& [name, record] : records_) RemoveOverrideFolder(record.override_dir);
  records_.clear();
  PublishLocked();
}

}  // namespace inferd

// ModelLifecycle's start, loads, unloads and polls as the server asks for them;
// the load of one model is model_lifecycle_load.cc, unloads
// model_lifecycle_unload.cc, lookups model_lifecycle_lookup.cc.
#include "core/lifecycle/model_lifecycle.h"

#include <algorithm>
#include <set>
#include <thread>

#include "core/common/freed_memory.h"
#include "core/lifecycle/arrivals.h"
#include "core/common/logging.h"
#include "core/model/model_version.h"

namespace inferd {

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
      clock_(*loader_.context().services->clock),
      serving_(std::make_shared<const ServingTable>()),
      keys_by_name_(std::make_shared<const KeysByName>()) {}

ModelLifecycle::~ModelLifecycle() { UnloadAll(clock_.NowNs()); }

Status ModelLifecycle::Start(const std::vector<std::string>& startup_models) {
  ASSIGN_OR_RETURN(std::vector<ModelLocation> models, options_.source->List());
  if (options_.on_demand) {
    StartOnDemand(models);
    return Status::Ok();
  }
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
  LoadAsTheyArrive(to_load, models);
  {
    MutexLock lock(&mu_);
    publish_deferred_ = false;
    PublishLocked();
  }
  ReturnFreedMemory();
  return Status::Ok();
}

std::vector<ModelLifecycle::StartPrep> ModelLifecycle::StartLocations(
    const std::vector<std::string>& names, const std::vector<ModelLocation>& models) {
  const std::set<std::string> wanted(names.begin(), names.end());
  std::set<std::string> seen;  // once each: --load-model may name a model twice
  std::vector<StartPrep> preps;
  for (const ModelLocation& location : models) {
    std::string key = ModelKey(location.ns, location.name);
    if (wanted.count(key) == 0 || !seen.insert(key).second) continue;
    preps.push_back({location, {}, nullptr});
  }
  return preps;
}

void ModelLifecycle::PrepareArrived(Status copied, std::atomic<bool>& opening,
                                    StartPrep* prep) const {
  prep->fingerprint = options_.source->Fingerprint(prep->location);
  if (!copied.ok()) {
    PreparedLoad failed;
    failed.plan = std::move(copied);
    prep->load = std::make_shared<const PreparedLoad>(std::move(failed));
    return;
  }
  // Opening a backend takes a while (dlopen, its initialize): one thread at a
  // time does it while the others go on reading configs. A model whose
  // backends were not opened here acquires them when it loads.
  const bool open = !opening.exchange(true, std::memory_order_acquire);
  prep->load = std::make_shared<const PreparedLoad>(loader_.Prepare(prep->location, open));
  if (open) opening.store(false, std::memory_order_release);
}

void ModelLifecycle::LoadAsTheyArrive(const std::vector<std::string>& names,
                                      const std::vector<ModelLocation>& models) {
  std::vector<StartPrep> preps = StartLocations(names, models);
  std::vector<ModelLocation> locations;
  for (const StartPrep& prep : preps) locations.push_back(prep.location);
  Arrivals arrivals;
  std::thread copying([&] {
    options_.source->MaterializeEach(
        locations, [&](size_t index, Status status) { arrivals.Push(index, std::move(status)); });
    arrivals.Close();
  });
  std::atomic<bool> opening{false};
  RunThreads(preps.size(), [&] {
    while (std::optional<Arrivals::Task> task = arrivals.Next()) {
      StartPrep& prep = preps[task->index];  // each arrives once: this task's alone
      if (task->prepare) {
        PrepareArrived(std::move(task->status), opening, &prep);
        arrivals.Prepared(task->index);
        continue;
      }
      // An ensemble loaded before may have loaded it already.
      Status status = DoLoad(ModelKey(prep.location.ns, prep.location.name), prep.location, {},
                             LoadKind::kIfNotReady, &prep);
      (void)status;  // recorded in the index and logged
    }
  });
  copying.join();
}

std::map<std::string, ModelLifecycle::StartPrep> ModelLifecycle::PrepareStart(
    const std::vector<std::string>& names, const std::vector<ModelLocation>& models) const {
  std::vector<StartPrep> preps = StartLocations(names, models);
  std::vector<ModelLocation> locations;
  for (const StartPrep& prep : preps) locations.push_back(prep.location);
  std::vector<Status> copied(preps.size());
  options_.source->MaterializeEach(  // an object store's models, side by side
      locations, [&](size_t index, Status status) { copied[index] = std::move(status); });
  std::atomic<bool> opening{false};
  std::atomic<size_t> next{0};
  RunThreads(preps.size(), [&] {
    for (size_t i = next++; i < preps.size(); i = next++) {
      PrepareArrived(std::move(copied[i]), opening, &preps[i]);
    }
  });
  std::map<std::string, StartPrep> prepared;
  for (StartPrep& prep : preps) {
    std::string key = ModelKey(prep.location.ns, prep.location.name);
    prepared.emplace(std::move(key), std::move(prep));
  }
  return prepared;
}

void ModelLifecycle::RunThreads(size_t work_items, const std::function<void()>& worker) const {
  const size_t thread_count = std::min<size_t>(std::max(1, options_.load_threads), work_items);
  std::vector<std::thread> threads;
  for (size_t t = 1; t < thread_count; ++t) threads.emplace_back(worker);
  if (thread_count > 0) worker();
  for (std::thread& thread : threads) thread.join();
}

void ModelLifecycle::ForEachParallel(const std::vector<std::string>& names,
                                     const std::function<void(const std::string&)>& work) const {
  std::atomic<size_t> next{0};
  RunThreads(names.size(), [&] {
    for (size_t i = next++; i < names.size(); i = next++) work(names[i]);
  });
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
    return DoLoad(name, ModelLocation{name, {}, "", ""}, overrides, LoadKind::kFresh);
  }
  ASSIGN_OR_RETURN(std::vector<ModelLocation> locations, LocateAll(name));
  // A plain load changes nothing unless the files did (Triton).
  const LoadKind kind = overrides.config_json ? LoadKind::kFresh : LoadKind::kIfChanged;
  Status outcome;
  for (ModelLocation& location : locations) {
    const std::string key = ModelKey(location.ns, location.name);
    Status status = DoLoad(key, std::move(location), overrides, kind);
    if (outcome.ok()) outcome = std::move(status);
  }
  return outcome;
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
      const ModelFingerprint& now = found.second;
      if (options_.on_demand && record.versions.empty()) {
        // Not loaded: known, and loads on its next request; a failed model
        // is tried again once its files change.
        if (!record.on_demand && (record.error.empty() || now != record.loaded_fingerprint)) {
          record.on_demand = true;
          record.error.clear();
        }
        continue;
      }
      record.aspired = true;
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
    Status status = DoLoad(name, present.at(name).first, {}, LoadKind::kChangedVersions);
    (void)status;  // recorded in the index and logged
  });
  for (const std::string& name : removed) {
    LOG_INFO("repository poll: model '{}' was removed", name);
    Status status = DoUnload(name, true);
    (void)status;
  }
  if (!to_load.empty() || !removed.empty()) ReturnFreedMemory();
}

}  // namespace inferd

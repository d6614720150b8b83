// ModelLifecycle with a memory budget (--model-memory-budget): every model is
// known from the start and loads on its first request; what the budget's
// OnDemandLoader asks of its host (loads, evictions, the loaded models' use,
// estimates and measurements).
#include <algorithm>
#include <filesystem>
#include <system_error>

#include "core/common/freed_memory.h"
#include "core/common/logging.h"
#include "core/common/process_memory.h"
#include "core/lifecycle/ensemble_dependencies.h"
#include "core/lifecycle/model_lifecycle.h"
#include "core/model/model_version.h"
#include "core/repository/model_repository.h"

namespace inferd {
namespace {

bool PinnedByConfig(const inference::ModelConfig& config) {
  auto found = config.parameters().find(kPinParameter);
  return found != config.parameters().end() && found->second.string_value() == "true";
}

}  // namespace

void ModelLifecycle::StartOnDemand(const std::vector<ModelLocation>& models) {
  std::vector<std::string> keys;
  for (const ModelLocation& location : models) keys.push_back(ModelKey(location.ns, location.name));
  // Every backend the repository's models run on opens now and stays open:
  // its one-time costs (ONNX Runtime's environment: ~20 MiB) are the
  // server's, measured before any model loads, not its first model's.
  std::map<std::string, StartPrep> prepared = PrepareStart(keys, models);
  MutexLock lock(&mu_);
  for (const auto& [key, prep] : prepared) {
    ModelRecord& record = records_[key];
    record.on_demand = true;
    record.last_seen = prep.fingerprint;
    open_backends_.push_back(prep.load);
  }
  PublishLocked();
  lock.Unlock();
  SettleBackends(prepared);
  LOG_INFO("{} models load on their first request, within the memory budget", models.size());
}

void ModelLifecycle::SettleBackends(const std::map<std::string, StartPrep>& prepared) {
  // A backend may finish its set-up in the background (ONNX Runtime makes its
  // environment on a thread of its own) and then it would land in the first
  // model's measurement: the smallest model of each backend loads and
  // unloads once, here, so that what the backend keeps is the server's.
  std::map<std::string, std::pair<uint64_t, std::string>> smallest;  // backend -> (bytes, key)
  for (const auto& [key, prep] : prepared) {
    if (!prep.load->plan.ok() || prep.load->plan->config.backend().empty()) continue;
    const uint64_t bytes = EstimateBytes(key);
    auto [entry, added] = smallest.try_emplace(prep.load->plan->config.backend(), bytes, key);
    if (!added && bytes < entry->second.first) entry->second = {bytes, key};
  }
  for (const auto& [backend, chosen] : smallest) {
    const StartPrep& prep = prepared.at(chosen.second);
    if (!DoLoad(chosen.second, prep.location, {}, LoadKind::kIfNotReady, &prep).ok()) {
      // Not settled: the model's first request loads it again and gets the
      // reason; an on-demand model is no start-up failure.
      MutexLock lock(&mu_);
      ModelRecord& record = records_[chosen.second];
      record.versions.clear();
      record.error.clear();
      record.on_demand = true;
      record.in_lifecycle = false;
      LOG_WARNING("backend '{}' not settled: {} did not load", backend,
                  DescribeModelKey(chosen.second));
      continue;
    }
    LOG_VERBOSE(1, "backend '{}' settled by loading and unloading {}", backend,
                DescribeModelKey(chosen.second));
    (void)DoUnload(chosen.second, false, kNotLoadedOnDemand);
  }
  ReturnFreedMemory();
}

bool ModelLifecycle::HasReadyVersion(const ModelRecord& record) {
  for (const auto& [version, v] : record.versions) {
    if (v.model != nullptr && v.state == ModelState::kReady) return true;
  }
  return false;
}

std::optional<std::string> ModelLifecycle::OnDemandKey(std::string_view name,
                                                       std::string_view ns) const {
  if (!options_.on_demand) return std::nullopt;
  StatusOr<std::string> key = KeyOf(name, ns);
  if (!key.ok()) return std::nullopt;
  MutexLock lock(&mu_);
  auto record = records_.find(*key);
  if (record == records_.end() || !record->second.on_demand) return std::nullopt;
  if (HasReadyVersion(record->second)) return std::nullopt;
  return *key;
}

void ModelLifecycle::SetPinned(const std::string& key, bool pinned) {
  MutexLock lock(&mu_);
  auto record = records_.find(key);
  if (record != records_.end()) record->second.pinned = pinned;
}

bool ModelLifecycle::Serves(const std::string& key) const { return GetByKey(key, -1).ok(); }

std::vector<std::string> ModelLifecycle::ComposingOf(const std::string& key) const {
  return StepsOfKey(key);
}

Status ModelLifecycle::LoadOnDemand(const std::string& key) {
  ASSIGN_OR_RETURN(ModelLocation location, LocateKey(key));
  LOG_INFO("loading {} on demand", DescribeModelKey(key));
  Status status = DoLoad(key, std::move(location), {}, LoadKind::kIfNotReady);
  ReturnFreedMemory();  // what the load freed does not count as its memory
  MutexLock lock(&mu_);
  ModelRecord& record = records_[key];
  if (HasReadyVersion(record)) {
    record.on_demand = false;
    record.idle_reason.clear();
  } else {
    // Failed: its requests fail with the reason until its files change
    // (POLL) or the repository API loads it. The server stays ready: one
    // broken model among many that load on demand is not the server's state.
    record.on_demand = false;
    record.in_lifecycle = false;
    if (record.error.empty()) record.error = status.ok() ? "no version loaded" : status.message();
  }
  return status;
}

void ModelLifecycle::Evict(const std::string& key, const std::string& reason) {
  Status status = DoUnload(key, false, reason);
  if (!status.ok()) LOG_WARNING("evicting {}: {}", DescribeModelKey(key), status.message());
  ReturnFreedMemory();
}

std::vector<ResidentModel> ModelLifecycle::Resident() const {
  MutexLock lock(&mu_);
  std::set<std::string> run_by_ensembles;
  for (const auto& [key, record] : records_) {
    for (const auto& [version, v] : record.versions) {
      if (v.model == nullptr || !v.model->is_ensemble()) continue;
      for (const auto& step : v.model->config().ensemble_scheduling().step()) {
        run_by_ensembles.insert(StepKey(step));
      }
    }
  }
  std::vector<ResidentModel> resident;
  for (const auto& [key, record] : records_) {
    if (!HasReadyVersion(record)) continue;
    ResidentModel model{key, 0, 0, false, record.pinned || options_.pinned.contains(key),
                        run_by_ensembles.contains(key)};
    for (const auto& [version, v] : record.versions) {
      if (v.model == nullptr) continue;
      model.last_used_ns = std::max(model.last_used_ns, v.model->last_used_ns());
      model.busy |= v.model->inflight() > 0;
      model.pinned |= PinnedByConfig(v.model->config());
    }
    resident.push_back(std::move(model));
  }
  return resident;
}

uint64_t ModelLifecycle::EstimateBytes(const std::string& key) const {
  StatusOr<ModelLocation> location = LocateKey(key);
  if (!location.ok()) return 0;
  uint64_t bytes = 0;
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(location->dir, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    if (it->is_regular_file(error)) bytes += it->file_size(error);
  }
  return bytes;
}

std::shared_ptr<const void> ModelLifecycle::HoldBackends(const std::string& key) const {
  StatusOr<ModelLocation> location = LocateKey(key);
  if (!location.ok()) return nullptr;
  return std::make_shared<const PreparedLoad>(loader_.Prepare(*location, /*open_backends=*/true));
}

uint64_t ModelLifecycle::MeasureBytes() const { return ProcessTreeResidentBytes(); }

}  // namespace inferd

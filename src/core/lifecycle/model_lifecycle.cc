#include "core/lifecycle/model_lifecycle.h"

#include <algorithm>
#include <thread>

#include "core/common/logging.h"
#include "core/model/model_version.h"

namespace inferd {

std::string_view ModelStateName(ModelState state) {
  switch (state) {
    case ModelState::kLoading: return "LOADING";
    case ModelState::kReady: return "READY";
    case ModelState::kUnloading: return "UNLOADING";
    case ModelState::kUnavailable: return "UNAVAILABLE";
  }
  return "UNAVAILABLE";
}

ModelLifecycle::ModelLifecycle(ModelLoader loader, int load_threads)
    : loader_(std::move(loader)),
      load_threads_(std::max(1, load_threads)),
      serving_(std::make_shared<const ServingTable>()) {}

ModelLifecycle::~ModelLifecycle() { UnloadAll(std::chrono::steady_clock::now()); }

void ModelLifecycle::LoadAll(const std::vector<ModelLocation>& models) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const ModelLocation& location : models) records_[location.name] = ModelRecord{};
  }
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < models.size(); i = next++) Record(loader_.Load(models[i]));
  };
  const size_t thread_count = std::min<size_t>(load_threads_, models.size());
  std::vector<std::thread> threads;
  for (size_t t = 1; t < thread_count; ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& thread : threads) thread.join();
}

void ModelLifecycle::Record(ModelLoadResult result) {
  if (!result.error.empty()) LOG_ERROR("failed to load model '{}': {}", result.name, result.error);
  for (const auto& version : result.versions) {
    if (!version.error.empty()) LOG_ERROR("failed to load {}", version.error);
  }
  std::lock_guard<std::mutex> lock(mu_);
  ModelRecord& record = records_[result.name];
  record.error = std::move(result.error);
  for (auto& version : result.versions) {
    VersionRecord& v = record.versions[version.version];
    v.model = std::move(version.model);
    v.state = v.model ? ModelState::kReady : ModelState::kUnavailable;
    v.reason = std::move(version.error);
  }
  PublishLocked();
}

void ModelLifecycle::PublishLocked() {
  auto table = std::make_shared<ServingTable>();
  for (const auto& [name, record] : records_) {
    for (const auto& [version, v] : record.versions) {
      if (v.state == ModelState::kReady) (*table)[name][version] = v.model;
    }
  }
  serving_.store(std::move(table), std::memory_order_release);
}

StatusOr<std::shared_ptr<ModelVersion>> ModelLifecycle::Get(std::string_view name,
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

Status ModelLifecycle::ExplainMissing(std::string_view name, int64_t version) const {
  const std::string model = "model '" + std::string(name) + "'";
  std::lock_guard<std::mutex> lock(mu_);
  auto record = records_.find(name);
  if (record == records_.end()) return Status::NotFound("unknown model: " + model + " is not in the repository");
  if (!record->second.error.empty()) {
    return Status::Unavailable(model + " is not available: " + record->second.error);
  }
  if (version < 0) {
    std::string reasons;
    for (const auto& [v, rec] : record->second.versions) {
      if (!rec.reason.empty()) reasons += (reasons.empty() ? "" : "; ") + rec.reason;
    }
    return Status::Unavailable(model + " has no ready version" +
                               (reasons.empty() ? "" : ": " + reasons));
  }
  auto found = record->second.versions.find(version);
  if (found == record->second.versions.end()) {
    return Status::NotFound("unknown version: " + model + " has no version " +
                            std::to_string(version));
  }
  return Status::Unavailable(model + " version " + std::to_string(version) + " is " +
                             std::string(ModelStateName(found->second.state)) +
                             (found->second.reason.empty() ? "" : ": " + found->second.reason));
}

std::vector<int64_t> ModelLifecycle::ReadyVersions(std::string_view name) const {
  std::shared_ptr<const ServingTable> table = serving_.load(std::memory_order_acquire);
  std::vector<int64_t> versions;
  auto model = table->find(name);
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
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [name, record] : records_) {
    if (!record.error.empty() || record.versions.empty()) {
      index.push_back({name, -1,
                       record.error.empty() ? ModelState::kLoading : ModelState::kUnavailable,
                       record.error});
      continue;
    }
    for (const auto& [version, v] : record.versions) {
      index.push_back({name, version, v.state, v.reason});
    }
  }
  return index;
}

bool ModelLifecycle::AllReady() const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [name, record] : records_) {
    if (!record.error.empty() || record.versions.empty()) return false;
    for (const auto& [version, v] : record.versions) {
      if (v.state != ModelState::kReady) return false;
    }
  }
  return true;
}

void ModelLifecycle::UnloadAll(std::chrono::steady_clock::time_point deadline) {
  std::vector<std::shared_ptr<ModelVersion>> loaded;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [name, record] : records_) {
      for (auto& [version, v] : record.versions) {
        if (v.model) {
          loaded.push_back(std::move(v.model));
          v.state = ModelState::kUnloading;
        }
      }
    }
    PublishLocked();
  }
  for (auto& model : loaded) model->Unload(deadline);
  std::lock_guard<std::mutex> lock(mu_);
  records_.clear();
  PublishLocked();
}

}  // namespace inferd

#include "core/backend/backend_manager.h"

namespace inferd {

BackendManager::BackendManager(std::filesystem::path backend_directory,
                               std::map<std::string, std::map<std::string, std::string>> settings)
    : backend_directory_(std::move(backend_directory)), settings_(std::move(settings)) {}

std::vector<std::filesystem::path> BackendManager::Candidates(
    const std::string& name, const std::filesystem::path& model_dir, int64_t version) const {
  const std::string file = "libinferd_" + name + ".so";
  return {model_dir / std::to_string(version) / file, model_dir / file,
          backend_directory_ / name / file};
}

StatusOr<std::shared_ptr<BackendLibrary>> BackendManager::Acquire(
    const std::string& name, const std::filesystem::path& model_dir, int64_t version) {
  if (name.empty() || name.find('/') != std::string::npos || name.find("..") != std::string::npos) {
    return Status::InvalidArg("invalid backend name '" + name + "'");
  }
  std::vector<std::filesystem::path> candidates = Candidates(name, model_dir, version);
  std::error_code ec;
  for (const std::filesystem::path& candidate : candidates) {
    if (!std::filesystem::is_regular_file(candidate, ec)) continue;
    {
      MutexLock lock(&mu_);
      auto seen = found_at_.find(candidate);
      if (seen != found_at_.end()) {
        if (std::shared_ptr<BackendLibrary> open = seen->second.lock()) return open;
      }
    }
    std::filesystem::path key = std::filesystem::canonical(candidate, ec);
    if (ec) key = candidate;
    MutexLock lock(&mu_);
    if (std::shared_ptr<BackendLibrary> open = open_[key].lock()) {
      found_at_[candidate] = open;
      return open;
    }
    auto found = settings_.find(name);
    auto library = BackendLibrary::Open(
        name, key, found == settings_.end() ? std::map<std::string, std::string>{} : found->second);
    if (!library.ok()) return library.status();
    std::shared_ptr<BackendLibrary> shared = std::move(library).value();
    open_[key] = shared;
    found_at_[candidate] = shared;
    if (keep_open_) kept_.push_back(shared);
    return shared;
  }
  std::string searched;
  for (const std::filesystem::path& candidate : candidates) {
    searched += (searched.empty() ? "" : ", ") + candidate.string();
  }
  return Status::Unavailable("backend '" + name + "' not found (looked for " + searched + ")");
}

void BackendManager::KeepLibrariesOpen() {
  MutexLock lock(&mu_);
  keep_open_ = true;
  for (const auto& [path, library] : open_) {
    if (std::shared_ptr<BackendLibrary> open = library.lock()) kept_.push_back(std::move(open));
  }
}

}  // namespace inferd

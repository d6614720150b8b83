// What loading a repository would do, decided without loading anything: each
// model's plan (its configuration read, completed and validated, the versions
// its policy selects) and the backend library each version would use. The
// server ABI offers it (INFERD_RepositoryCheck) for inferd-check-config and
// any embedder. Stateless; thread-safe.
#ifndef INFERD_CORE_LIFECYCLE_REPOSITORY_CHECK_H_
#define INFERD_CORE_LIFECYCLE_REPOSITORY_CHECK_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/repository/model_source.h"
#include "inferd/base/status.h"

namespace inferd {

struct RepositoryCheckOptions {
  std::vector<std::filesystem::path> repositories;
  // Where the models are read from instead, when set: an object store's
  // (repository_source.h) copies each model checked into its cache first.
  std::shared_ptr<const ModelSource> source;
  std::filesystem::path backend_directory;
  bool strict_model_config = true;
  // configs/<name>.pbtxt replaces config.pbtxt where it exists; empty: none.
  std::string model_config_name;
  // Models to check; empty: every model of the repositories.
  std::vector<std::string> models;
};

// The verdict on one model. Error lines name the model (and version) at fault,
// word for word as the server's repository index would.
struct ModelCheck {
  std::string name;
  bool in_repository = true;  // false: a requested name no repository holds
  std::vector<std::string> errors;
  std::vector<int64_t> versions;        // that would load, ascending
  std::string backend;                  // the configuration's backend name
  std::vector<std::string> libraries;   // the backend libraries found, without repeats
  bool completed_by_backend = false;    // no config.pbtxt: the backend completes it
  bool ok() const { return in_repository && errors.empty(); }
};

// One ModelCheck per model, by name; then one per requested name not found.
// An error means a repository cannot be read at all.
StatusOr<std::vector<ModelCheck>> CheckRepository(const RepositoryCheckOptions& options);

// {"models": [{"name", "in_repository", "ok", "errors", "versions", "backend",
// "libraries", "completed_by_backend"}, ...]}
std::string RepositoryCheckJson(const std::vector<ModelCheck>& checks);

}  // namespace inferd

#endif  // INFERD_CORE_LIFECYCLE_REPOSITORY_CHECK_H_

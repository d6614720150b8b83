// Reading model repositories from disk: which model folders exist (across one
// or more repository roots) and which numeric version folders each holds.
// Nothing here loads anything. Stateless functions; thread-safe.
#ifndef INFERD_CORE_REPOSITORY_MODEL_REPOSITORY_H_
#define INFERD_CORE_REPOSITORY_MODEL_REPOSITORY_H_

#include <filesystem>
#include <string>
#include <vector>

#include "inferd/base/status.h"

namespace inferd {

// A model folder found in a repository.
struct ModelLocation {
  std::string name;
  std::filesystem::path dir;  // <repository>/<name>
  // Set when the model cannot be used as found, e.g. the same name in two
  // repositories; the model is then UNAVAILABLE with this reason.
  std::string error;
};

// Every model folder under `roots`, sorted by name. A root that is not a
// readable folder is an error for the whole scan. Hidden folders are skipped.
StatusOr<std::vector<ModelLocation>> ScanRepositories(
    const std::vector<std::filesystem::path>& roots);

// The numeric version folders inside `model_dir`, ascending. Other entries are
// ignored, as Triton does.
std::vector<int64_t> ListVersionFolders(const std::filesystem::path& model_dir);

}  // namespace inferd

#endif  // INFERD_CORE_REPOSITORY_MODEL_REPOSITORY_H_

// Loading a model version's common parts (see model_loading.h).
#include "common/model_loading.h"

namespace inferd::backend_common {

INFERD_Error* RequestErrorPrefix(INFERD_Model* model, std::string* prefix) {
  const char* name = nullptr;
  uint64_t version = 0;
  if (auto* err = INFERD_ModelName(model, &name)) return err;
  if (auto* err = INFERD_ModelVersion(model, &version)) return err;
  *prefix = "model '" + std::string(name) + "' version " + std::to_string(version) + ": ";
  return nullptr;
}

INFERD_Error* VersionFolder(INFERD_Model* model, std::filesystem::path* folder) {
  const char* dir = nullptr;
  uint64_t version = 0;
  if (auto* err = INFERD_ModelRepositoryPath(model, &dir)) return err;
  if (auto* err = INFERD_ModelVersion(model, &version)) return err;
  *folder = std::filesystem::path(dir) / std::to_string(version);
  return nullptr;
}

INFERD_Error* FindModelFile(INFERD_Model* model, const std::string& configured,
                            const ModelFileRule& rule, std::string* path) {
  std::filesystem::path candidate;
  if (auto* err = VersionFolder(model, &candidate)) return err;
  candidate /= configured.empty() ? rule.default_name : configured;
  std::error_code ec;
  bool found = false;
  if (rule.folder_holds_default) {
    if (std::filesystem::is_directory(candidate, ec)) candidate /= rule.default_name;
    found = std::filesystem::exists(candidate, ec);
  } else {
    found = std::filesystem::is_regular_file(candidate, ec);
  }
  if (!found) {
    return MakeError(INFERD_ERROR_NOT_FOUND,
                     "the model file " + candidate.string() + " does not exist (the " +
                         rule.backend + " backend loads <version>/<default_model_filename>, " +
                         "default " + rule.default_name + ")");
  }
  *path = candidate.string();
  return nullptr;
}

}  // namespace inferd::backend_common

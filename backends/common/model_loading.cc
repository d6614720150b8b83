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

}  // namespace inferd::backend_common

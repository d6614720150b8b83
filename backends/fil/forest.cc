// Picking the library for a model type (see forest.h).
#include "forest.h"

namespace inferd::fil {

std::string Forest::Load(const FilSettings& settings, const std::string& path,
                         std::unique_ptr<Forest>* forest) {
  if (settings.model_type == ModelType::kLightgbm) {
    return LoadLightgbmForest(settings, path, forest);
  }
  return LoadXgboostForest(settings, path, forest);
}

}  // namespace inferd::fil

// A loaded tree ensemble that predicts rows of FP32 features: XGBoost
// (xgboost_forest.cc, libxgboost's C API) or LightGBM (lightgbm_forest.cc,
// lib_lightgbm's C API). One per model instance. Not thread-safe: one
// instance's thread predicts at a time.
#ifndef INFERD_BACKENDS_FIL_FOREST_H_
#define INFERD_BACKENDS_FIL_FOREST_H_

#include <cstdint>
#include <memory>
#include <string>

#include "fil_settings.h"

namespace inferd::fil {

class Forest {
 public:
  virtual ~Forest() = default;

  // Loads the model file at `path` as `settings.model_type` says, its
  // predictions using `settings.threads` threads. Returns "" and sets
  // `*forest`, or the library's reason naming the file.
  static std::string Load(const FilSettings& settings, const std::string& path,
                          std::unique_ptr<Forest>* forest);

  // Features per row the model was trained on.
  virtual int64_t features() const = 0;
  // Values predicted per row: 1 for a regressor or binary classifier (its
  // probability of class 1), the class count for a multi-class one.
  virtual int64_t width() const = 0;
  // Whether the predictions are class ids rather than probabilities
  // (XGBoost's multi:softmax objective); width() is 1 then.
  virtual bool class_ids() const { return false; }

  // Predicts `rows` rows of features() values at `data` (row-major) into
  // `out`, rows x width() values (probabilities for classifiers, values for
  // regressors). Returns "" or the library's reason.
  virtual std::string Predict(const float* data, int64_t rows, float* out) = 0;
};

// The two libraries' loaders, used by Forest::Load.
std::string LoadXgboostForest(const FilSettings& settings, const std::string& path,
                              std::unique_ptr<Forest>* forest);
std::string LoadLightgbmForest(const FilSettings& settings, const std::string& path,
                               std::unique_ptr<Forest>* forest);

}  // namespace inferd::fil

#endif  // INFERD_BACKENDS_FIL_FOREST_H_

// LightGBM text models (model.txt) of a format LightGBM 4 reads
// (lightgbm_model_file.h) through lib_lightgbm's C API: one booster
// per instance, predictions over a dense row-major FP32 batch with
// LGBM_BoosterPredictForMat (doubles out, narrowed to FP32 as FIL does).
#include <fstream>
#include <limits>
#include <vector>

#include "forest.h"
#include "lightgbm_api.h"
#include "lightgbm_model_file.h"

namespace inferd::fil {
namespace {

class LightgbmForest final : public Forest {
 public:
  LightgbmForest(const LightgbmApi& api, LightgbmApi::BoosterHandle booster, int threads)
      : api_(api), booster_(booster), parameter_("num_threads=" + std::to_string(threads)) {}
  ~LightgbmForest() override { api_.BoosterFree(booster_); }
  LightgbmForest(const LightgbmForest&) = delete;
  LightgbmForest& operator=(const LightgbmForest&) = delete;

  int64_t features() const override { return features_; }
  int64_t width() const override { return width_; }

  std::string Predict(const float* data, int64_t rows, float* out) override {
    if (rows > std::numeric_limits<int32_t>::max()) return "too many rows for LightGBM";
    scratch_.resize(static_cast<size_t>(rows * width_));
    int64_t written = 0;
    if (api_.BoosterPredictForMat(booster_, data, kLgbmDtypeFloat32, static_cast<int32_t>(rows),
                                  static_cast<int32_t>(features_), 1, kLgbmPredictNormal, 0, -1,
                                  parameter_.c_str(), &written, scratch_.data()) != 0) {
      return std::string("LightGBM prediction failed: ") + api_.GetLastError();
    }
    if (written != rows * width_) {
      return "LightGBM predicted " + std::to_string(written) + " values for " +
             std::to_string(rows) + " rows of " + std::to_string(width_);
    }
    for (size_t i = 0; i < scratch_.size(); ++i) out[i] = static_cast<float>(scratch_[i]);
    return "";
  }

  std::string Probe() {
    int classes = 0;
    int features = 0;
    if (api_.BoosterGetNumClasses(booster_, &classes) != 0 ||
        api_.BoosterGetNumFeature(booster_, &features) != 0) {
      return std::string("LightGBM cannot read the model's shape: ") + api_.GetLastError();
    }
    width_ = classes > 1 ? classes : 1;
    features_ = features;
    return "";
  }

 private:
  const LightgbmApi& api_;
  LightgbmApi::BoosterHandle const booster_;
  const std::string parameter_;  //!< LightGBM's prediction parameters
  int64_t features_ = 0;
  int64_t width_ = 1;
  std::vector<double> scratch_;  //!< the last prediction, as LightGBM writes it
};

}  // namespace

std::string LoadLightgbmForest(const FilSettings& settings, const std::string& path,
                               std::unique_ptr<Forest>* forest) {
  std::ifstream header(path);
  if (std::string err = CheckLightgbmModelHeader(header); !err.empty()) {
    return "LightGBM cannot load " + path + ": " + err;
  }
  std::string error;
  const LightgbmApi* api = GetLightgbmApi(&error);
  if (api == nullptr) return error;
  LightgbmApi::BoosterHandle booster = nullptr;
  int iterations = 0;
  if (api->BoosterCreateFromModelfile(path.c_str(), &iterations, &booster) != 0) {
    return "LightGBM cannot load " + path + ": " + api->GetLastError();
  }
  auto lgbm = std::make_unique<LightgbmForest>(*api, booster, settings.threads);
  if (std::string err = lgbm->Probe(); !err.empty()) return path + ": " + err;
  *forest = std::move(lgbm);
  return "";
}

}  // namespace inferd::fil

// XGBoost models through libxgboost's C API (Debian's libxgboost-dev, 1.7):
// one booster per instance, predictions over a dense row-major FP32 batch
// with XGBoosterPredictFromDense (no DMatrix copy).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <vector>

#include "forest.h"
#include "xgboost/c_api.h"

namespace inferd::fil {
namespace {

// XGBoost's last error as one line: its first, without the "[12:00:00]
// ./src/file.cc:42: " prefix and the stack trace that follow.
std::string OneLine(std::string text) {
  text = text.substr(0, text.find('\n'));
  if (!text.empty() && text[0] == '[') {
    if (size_t end = text.find("] "); end != std::string::npos) text.erase(0, end + 2);
  }
  if (size_t colon = text.find(": "); colon != std::string::npos) {
    const std::string source = text.substr(0, colon);
    if (source.find(".cc:") != std::string::npos || source.find(".h:") != std::string::npos) {
      text.erase(0, colon + 2);
    }
  }
  return text;
}

std::string LastError(const std::string& what) { return what + ": " + OneLine(XGBGetLastError()); }

class XgboostForest final : public Forest {
 public:
  explicit XgboostForest(BoosterHandle booster) : booster_(booster) {}
  ~XgboostForest() override { XGBoosterFree(booster_); }
  XgboostForest(const XgboostForest&) = delete;
  XgboostForest& operator=(const XgboostForest&) = delete;

  int64_t features() const override { return features_; }
  int64_t width() const override { return width_; }
  bool class_ids() const override { return class_ids_; }

  std::string Predict(const float* data, int64_t rows, float* out) override {
    const bst_ulong* shape = nullptr;
    bst_ulong dim = 0;
    const float* result = nullptr;
    if (std::string err = Run(data, rows, &shape, &dim, &result); !err.empty()) return err;
    std::copy(result, result + rows * width_, out);
    return "";
  }

  // Reads the feature count and, from one prediction, the values per row.
  std::string Probe() {
    bst_ulong features = 0;
    if (XGBoosterGetNumFeature(booster_, &features) != 0) {
      return LastError("XGBoost cannot read the feature count");
    }
    features_ = static_cast<int64_t>(features);
    bst_ulong length = 0;
    const char* config = nullptr;
    if (XGBoosterSaveJsonConfig(booster_, &length, &config) != 0) {
      return LastError("XGBoost cannot read the model's configuration");
    }
    class_ids_ = std::string(config, length).find("\"multi:softmax\"") != std::string::npos;
    const std::vector<float> zeros(static_cast<size_t>(std::max<int64_t>(features_, 1)), 0.0f);
    const bst_ulong* shape = nullptr;
    bst_ulong dim = 0;
    const float* result = nullptr;
    if (std::string err = Run(zeros.data(), 1, &shape, &dim, &result); !err.empty()) return err;
    width_ = dim >= 2 ? static_cast<int64_t>(shape[1]) : 1;
    for (bst_ulong d = 2; d < dim; ++d) width_ *= static_cast<int64_t>(shape[d]);
    return "";
  }

 private:
  std::string Run(const float* data, int64_t rows, const bst_ulong** shape, bst_ulong* dim,
                  const float** result) {
    // The array interface (numpy's __array_interface__, version 3) of the batch.
    char array[160];
    std::snprintf(array, sizeof(array),
                  "{\"data\": [%" PRIuPTR ", true], \"shape\": [%" PRId64 ", %" PRId64
                  "], \"typestr\": \"<f4\", \"version\": 3}",
                  reinterpret_cast<uintptr_t>(data), rows, features_);
    // type 0: the objective's transformed prediction (probabilities for classifiers).
    static const char kConfig[] =
        "{\"type\": 0, \"training\": false, \"iteration_begin\": 0, \"iteration_end\": 0, "
        "\"strict_shape\": false, \"missing\": NaN, \"cache_id\": 0}";
    if (XGBoosterPredictFromDense(booster_, array, kConfig, nullptr, shape, dim, result) != 0) {
      return LastError("XGBoost prediction failed");
    }
    return "";
  }

  BoosterHandle const booster_;
  int64_t features_ = 0;
  int64_t width_ = 1;
  bool class_ids_ = false;  //!< multi:softmax: predictions are class ids
};

}  // namespace

std::string LoadXgboostForest(const FilSettings& settings, const std::string& path,
                              std::unique_ptr<Forest>* forest) {
  BoosterHandle booster = nullptr;
  if (XGBoosterCreate(nullptr, 0, &booster) != 0) {
    return LastError("XGBoost cannot create a booster");
  }
  auto xgb = std::make_unique<XgboostForest>(booster);
  if (XGBoosterLoadModel(booster, path.c_str()) != 0) {
    return LastError("XGBoost cannot load " + path + " as " +
                     ModelTypeName(settings.model_type));
  }
  const std::string threads = std::to_string(settings.threads);
  if (XGBoosterSetParam(booster, "nthread", threads.c_str()) != 0) {
    return LastError("XGBoost refuses nthread " + threads);
  }
  if (std::string err = xgb->Probe(); !err.empty()) return path + ": " + err;
  *forest = std::move(xgb);
  return "";
}

}  // namespace inferd::fil

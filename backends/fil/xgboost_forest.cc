// XGBoost models through libxgboost's C API, with the library that reads the
// file right (xgboost_api.h, ChooseXgboostReader): one booster per instance,
// predictions over a dense row-major FP32 batch with XGBoosterPredictFromDense
// (no DMatrix copy).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include "forest.h"
#include "xgboost_api.h"
#include "xgboost_model_file.h"

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

class XgboostForest final : public Forest {
 public:
  XgboostForest(const XgboostApi& api, BoosterHandle booster) : api_(api), booster_(booster) {}
  ~XgboostForest() override { api_.BoosterFree(booster_); }
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
    if (api_.BoosterGetNumFeature(booster_, &features) != 0) {
      return LastError("XGBoost cannot read the feature count");
    }
    features_ = static_cast<int64_t>(features);
    bst_ulong length = 0;
    const char* config = nullptr;
    if (api_.BoosterSaveJsonConfig(booster_, &length, &config) != 0) {
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
    if (api_.BoosterPredictFromDense(booster_, array, kConfig, nullptr, shape, dim, result) != 0) {
      return LastError("XGBoost prediction failed");
    }
    return "";
  }

  std::string LastError(const std::string& what) const {
    return what + ": " + OneLine(api_.GetLastError());
  }

  const XgboostApi& api_;
  BoosterHandle const booster_;
  int64_t features_ = 0;
  int64_t width_ = 1;
  bool class_ids_ = false;  //!< multi:softmax: predictions are class ids
};

// The file's bytes, or "" with `*error` set.
std::string ReadAll(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) *error = "cannot read " + path;
  return bytes;
}

// The library that reads `bytes` right, or null with `*error` saying why none does.
const XgboostApi* PickLibrary(const std::string& bytes, const std::string& cannot_load,
                              std::string* error) {
  XgboostModelFile file;
  if (std::string err = ReadXgboostModelFile(bytes, &file); !err.empty()) {
    *error = cannot_load + ": " + err;
    return nullptr;
  }
  XgboostReader reader = XgboostReader::kLinked;
  if (std::string err = ChooseXgboostReader(file, AvailableXgboostLibraries(), &reader);
      !err.empty()) {
    *error = cannot_load + ": " + err;
    return nullptr;
  }
  std::string unused;
  return reader == XgboostReader::kLinked ? &LinkedXgboost() : BundledXgboost(&unused);
}

}  // namespace

std::string LoadXgboostForest(const FilSettings& settings, const std::string& path,
                              std::unique_ptr<Forest>* forest) {
  const std::string cannot_load =
      "XGBoost cannot load " + path + " as " + ModelTypeName(settings.model_type);
  std::string error;
  const std::string bytes = ReadAll(path, &error);
  if (!error.empty()) return cannot_load + ": " + error;
  const XgboostApi* api = PickLibrary(bytes, cannot_load, &error);
  if (api == nullptr) return error;
  BoosterHandle booster = nullptr;
  if (api->BoosterCreate(nullptr, 0, &booster) != 0) {
    return api->name + " cannot create a booster: " + OneLine(api->GetLastError());
  }
  auto xgb = std::make_unique<XgboostForest>(*api, booster);
  if (api->BoosterLoadModelFromBuffer(booster, bytes.data(), bytes.size()) != 0) {
    return cannot_load + " (" + api->name + "): " + OneLine(api->GetLastError());
  }
  const std::string threads = std::to_string(settings.threads);
  if (api->BoosterSetParam(booster, "nthread", threads.c_str()) != 0) {
    return api->name + " refuses nthread " + threads + ": " + OneLine(api->GetLastError());
  }
  if (std::string err = xgb->Probe(); !err.empty()) return path + ": " + err;
  *forest = std::move(xgb);
  return "";
}

}  // namespace inferd::fil

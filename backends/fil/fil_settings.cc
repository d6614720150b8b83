// Parsing of the model configuration JSON into FilSettings (see fil_settings.h).
#include "fil_settings.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <vector>

#include "common/config_json.h"
#include "rapidjson/document.h"

namespace inferd::fil {
namespace {

using rapidjson::Value;

using backend_common::AsInt;
using backend_common::InstanceCount;
using backend_common::Member;
using backend_common::Parameter;

std::string ParseBool(const Value& doc, const char* key, bool* out) {
  std::optional<std::string> text = Parameter(doc, key);
  if (!text) return "";
  if (*text == "true") {
    *out = true;
  } else if (*text == "false") {
    *out = false;
  } else {
    return "parameter '" + std::string(key) + "' is '" + *text + "', not true or false";
  }
  return "";
}

std::string ParseModelType(const Value& doc, FilSettings* settings) {
  std::optional<std::string> text = Parameter(doc, "model_type");
  if (!text) {
    return "parameter 'model_type' is missing (xgboost, xgboost_json, xgboost_ubj or lightgbm)";
  }
  if (*text == "xgboost") {
    settings->model_type = ModelType::kXgboost;
  } else if (*text == "xgboost_json") {
    settings->model_type = ModelType::kXgboostJson;
  } else if (*text == "xgboost_ubj") {
    settings->model_type = ModelType::kXgboostUbj;
  } else if (*text == "lightgbm") {
    settings->model_type = ModelType::kLightgbm;
  } else if (*text == "treelite_checkpoint") {
    return "parameter 'model_type' is 'treelite_checkpoint', which the fil backend does not "
           "serve (no Treelite library in Debian)";
  } else {
    return "parameter 'model_type' is '" + *text +
           "', not xgboost, xgboost_json, xgboost_ubj or lightgbm";
  }
  return "";
}

// The single FP32 tensor of one dimension in `array` (input or output).
std::string ParseTensor(const Value& doc, const char* kind, std::string* name, int64_t* dim) {
  const Value* array = Member(doc, kind);
  if (array == nullptr || !array->IsArray() || array->Size() != 1) {
    return std::string("the fil backend needs exactly one ") + kind + " (FP32)";
  }
  const Value& entry = (*array)[0];
  const Value* name_value = Member(entry, "name");
  *name = name_value && name_value->IsString() ? name_value->GetString() : "";
  const std::string what = std::string(kind) + " '" + *name + "'";
  const Value* data_type = Member(entry, "data_type");
  if (!data_type || !data_type->IsString() || std::string(data_type->GetString()) != "TYPE_FP32") {
    return what + " must be TYPE_FP32";
  }
  if (Member(entry, "reshape") != nullptr) {
    return what + " has a reshape, which the fil backend does not apply";
  }
  const Value* dims = Member(entry, "dims");
  std::optional<int64_t> value;
  if (dims && dims->IsArray() && dims->Size() == 1) value = AsInt((*dims)[0]);
  if (!value || *value <= 0) {
    return what + " must have one fixed dimension (" +
           (std::string(kind) == "input" ? "the feature count" : "1, or the class count") + ")";
  }
  *dim = *value;
  return "";
}

const char* DefaultFilename(ModelType type) {
  switch (type) {
    case ModelType::kXgboost: return "xgboost.model";
    case ModelType::kXgboostJson: return "xgboost.json";
    case ModelType::kXgboostUbj: return "xgboost.ubj";
    case ModelType::kLightgbm: return "model.txt";
  }
  return "";
}

}  // namespace

const char* ModelTypeName(ModelType type) {
  switch (type) {
    case ModelType::kXgboost: return "xgboost";
    case ModelType::kXgboostJson: return "xgboost_json";
    case ModelType::kXgboostUbj: return "xgboost_ubj";
    case ModelType::kLightgbm: return "lightgbm";
  }
  return "";
}

std::string ParseFilSettings(std::string_view config_json, unsigned cores,
                             FilSettings* settings) {
  rapidjson::Document doc;
  doc.Parse(config_json.data(), config_json.size());
  if (doc.HasParseError() || !doc.IsObject()) return "the model configuration is not a JSON object";
  *settings = FilSettings{};
  if (const Value* mbs = Member(doc, "max_batch_size")) {
    settings->max_batch_size = AsInt(*mbs).value_or(0);
  }
  if (auto err = ParseModelType(doc, settings); !err.empty()) return err;
  settings->model_filename = DefaultFilename(settings->model_type);
  if (const Value* file = Member(doc, "default_model_filename");
      file && file->IsString() && file->GetStringLength() > 0) {
    settings->model_filename = file->GetString();
  }
  if (auto err = ParseTensor(doc, "input", &settings->input_name, &settings->features);
      !err.empty()) {
    return err;
  }
  if (auto err = ParseTensor(doc, "output", &settings->output_name, &settings->output_width);
      !err.empty()) {
    return err;
  }
  if (auto err = ParseBool(doc, "output_class", &settings->output_class); !err.empty()) return err;
  if (auto err = ParseBool(doc, "predict_proba", &settings->predict_proba); !err.empty()) {
    return err;
  }
  if (std::optional<std::string> text = Parameter(doc, "threshold")) {
    char* end = nullptr;
    const float value = std::strtof(text->c_str(), &end);
    if (text->empty() || *end != '\0' || !std::isfinite(value)) {
      return "parameter 'threshold' is '" + *text + "', not a number";
    }
    settings->threshold = value;
  }
  if (settings->predict_proba && !settings->output_class) {
    return "parameter 'predict_proba' is true but 'output_class' is not: probabilities need a "
           "classifier";
  }
  if (!settings->output_class && settings->output_width != 1) {
    return "output '" + settings->output_name + "' must have dims [ 1 ] for a regressor, not [ " +
           std::to_string(settings->output_width) + " ]";
  }
  if (settings->output_class && !settings->predict_proba && settings->output_width != 1) {
    return "output '" + settings->output_name +
           "' must have dims [ 1 ] (the class id) when predict_proba is false";
  }
  const int instances = InstanceCount(doc);
  settings->threads = std::max(1, static_cast<int>(cores) / instances);
  return "";
}

}  // namespace inferd::fil

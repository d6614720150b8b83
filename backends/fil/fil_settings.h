// What the fil backend reads from a model's configuration, under Triton FIL's
// names: the model type and its file, the one FP32 input [features], the one
// FP32 output and how predictions become it (`output_class`, `predict_proba`,
// `threshold`), and the threads each instance may use. Parsed from the JSON
// that INFERD_ModelConfig returns. Pure; thread-safe.
#ifndef INFERD_BACKENDS_FIL_FIL_SETTINGS_H_
#define INFERD_BACKENDS_FIL_FIL_SETTINGS_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace inferd::fil {

// The serialization formats of FIL's `model_type`.
enum class ModelType { kXgboost, kXgboostJson, kXgboostUbj, kLightgbm };

struct FilSettings {
  ModelType model_type = ModelType::kXgboost;
  std::string model_filename;    //!< default_model_filename, else the type's default
  std::string input_name;        //!< the configured input (FIL: input__0)
  std::string output_name;       //!< the configured output (FIL: output__0)
  int64_t features = 0;          //!< the input's one dimension
  int64_t output_width = 0;      //!< the output's one dimension
  int64_t max_batch_size = 0;    //!< > 0: dimension 0 of the input is the batch
  bool output_class = false;     //!< a classifier (class ids or probabilities)
  bool predict_proba = false;    //!< probabilities per class instead of class ids
  float threshold = 0.5f;        //!< a binary classifier's decision threshold
  int threads = 1;               //!< threads one instance's predictions may use
};

// Parses the configuration JSON into `settings`; `cores` is the machine's
// core count, shared by the model's instances. Returns "" on success, else
// what is wrong, naming the field or parameter: an unknown or unsupported
// model_type (treelite_checkpoint), a parameter that is not a boolean or a
// number, an input or output that is not one FP32 tensor of one dimension.
std::string ParseFilSettings(std::string_view config_json, unsigned cores,
                             FilSettings* settings);

// "xgboost", "lightgbm", ... as in the configuration.
const char* ModelTypeName(ModelType type);

}  // namespace inferd::fil

#endif  // INFERD_BACKENDS_FIL_FIL_SETTINGS_H_

// What the ONNX Runtime backend reads from a model's configuration: the
// compiled backends' common settings (common/model_settings.h: tensors with
// their `reshape`, max_batch_size, the model file name, the instance count,
// the `parameters`), the tensors the sequence batcher adds, and the
// `optimization` settings, parsed from the JSON that INFERD_ModelConfig
// returns. Pure; thread-safe.
#ifndef INFERD_BACKENDS_ONNXRUNTIME_MODEL_SETTINGS_H_
#define INFERD_BACKENDS_ONNXRUNTIME_MODEL_SETTINGS_H_

#include <optional>
#include <string>
#include <string_view>

#include "common/model_settings.h"
#include "ort_types.h"

namespace inferd::onnxruntime {

using backend_common::TensorSpec;

struct ModelSettings : backend_common::ModelSettings {
  std::optional<int> graph_level;  //!< optimization { graph { level } }
};

// Parses the configuration JSON into `settings` ("" default_model_filename
// means model.onnx). Returns "" on success, else what is wrong (e.g. a
// datatype the backend does not serve, naming the tensor).
std::string ParseModelSettings(std::string_view config_json, ModelSettings* settings);

}  // namespace inferd::onnxruntime

#endif  // INFERD_BACKENDS_ONNXRUNTIME_MODEL_SETTINGS_H_

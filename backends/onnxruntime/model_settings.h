// What the ONNX Runtime backend reads from a model's configuration: the
// tensors, max_batch_size, the model file name, the instance count and the
// `parameters` / `optimization` settings, parsed from the JSON that
// INFERD_ModelConfig returns. Pure; thread-safe.
#ifndef INFERD_BACKENDS_ONNXRUNTIME_MODEL_SETTINGS_H_
#define INFERD_BACKENDS_ONNXRUNTIME_MODEL_SETTINGS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ort_types.h"

namespace inferd::onnxruntime {

// One configured input or output.
struct TensorSpec {
  std::string name;
  const ElementType* type = nullptr;  //!< never null after a successful parse
  std::vector<int64_t> dims;          //!< without the batch dimension; -1 is variable
  //! The shape the model itself sees (config `reshape`), without the batch
  //! dimension; absent when it is `dims`.
  std::optional<std::vector<int64_t>> reshape;
};

struct ModelSettings {
  std::string name;
  int64_t max_batch_size = 0;            //!< > 0: dimension 0 of every tensor is the batch
  std::string default_model_filename;    //!< "" means model.onnx
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::map<std::string, std::string> parameters;  //!< `parameters` string values
  std::optional<int> graph_level;        //!< optimization { graph { level } }
  int instance_count = 1;                //!< instances of the model, all groups together

  bool batching() const { return max_batch_size > 0; }
};

// Parses the configuration JSON into `settings`. Returns "" on success, else
// what is wrong (e.g. a datatype the backend does not serve, naming the tensor).
std::string ParseModelSettings(std::string_view config_json, ModelSettings* settings);

}  // namespace inferd::onnxruntime

#endif  // INFERD_BACKENDS_ONNXRUNTIME_MODEL_SETTINGS_H_

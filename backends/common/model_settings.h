// What a compiled backend (onnxruntime, pytorch) reads from a model's
// configuration in common: the tensors, max_batch_size, the model file name,
// the instance count and the `parameters`. Each backend names its element
// types and what it refuses (TensorRules) and reads its own extras around
// this. Pure; thread-safe. C++17 (the PyTorch backend's LibTorch files
// include it).
#ifndef INFERD_BACKENDS_COMMON_MODEL_SETTINGS_H_
#define INFERD_BACKENDS_COMMON_MODEL_SETTINGS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/config_json.h"
#include "common/element_type.h"

namespace inferd::backend_common {

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
  int64_t max_batch_size = 0;          //!< > 0: dimension 0 of every tensor is the batch
  std::string default_model_filename;  //!< "" means the backend's default file
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::map<std::string, std::string> parameters;  //!< `parameters` string values
  int instance_count = 1;              //!< instances of the model, all groups together

  bool batching() const { return max_batch_size > 0; }
};

// How one backend reads tensors.
struct TensorRules {
  const TypeTable* types = nullptr;
  //! Ends "<tensor> has data_type <type_name>" when the table lacks the type
  //! (", which the ... backend does not serve").
  std::string (*type_refusal)(const std::string& type_name) = nullptr;
  //! Empty: `reshape` is read into TensorSpec::reshape; else the end of the
  //! refusal of a tensor that has one ("<tensor> has a reshape<this>").
  const char* reshape_refusal = "";
};

// Parses `config_json` into `doc` (for the backend's own extras) and reads
// the common settings into `settings`, which is reset first. Returns "" on
// success, else what is wrong, naming the tensor.
std::string ReadModelSettings(std::string_view config_json, const TensorRules& rules,
                              ModelSettings* settings, rapidjson::Document* doc);

}  // namespace inferd::backend_common

#endif  // INFERD_BACKENDS_COMMON_MODEL_SETTINGS_H_

// What the PyTorch backend reads from a model's configuration: the tensors,
// max_batch_size, the model file name, the instance count and the
// `parameters`, parsed from the JSON that INFERD_ModelConfig returns. Pure;
// thread-safe.
#ifndef INFERD_BACKENDS_PYTORCH_MODEL_SETTINGS_H_
#define INFERD_BACKENDS_PYTORCH_MODEL_SETTINGS_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "torch_types.h"

namespace inferd::pytorch {

// One configured input or output.
struct TensorSpec {
  std::string name;
  const ElementType* type = nullptr;  //!< never null after a successful parse
  std::vector<int64_t> dims;          //!< without the batch dimension; -1 is variable
};

struct ModelSettings {
  std::string name;
  int64_t max_batch_size = 0;          //!< > 0: dimension 0 of every tensor is the batch
  std::string default_model_filename;  //!< "" means model.pt
  std::vector<TensorSpec> inputs;
  std::vector<TensorSpec> outputs;
  std::map<std::string, std::string> parameters;  //!< `parameters` string values
  int instance_count = 1;              //!< instances of the model, all groups together

  bool batching() const { return max_batch_size > 0; }
};

// Parses the configuration JSON into `settings`. Returns "" on success, else
// what is wrong (a datatype LibTorch has no type for, a `reshape`, which the
// backend does not apply, a sequence batcher's control tensors), naming the
// tensor.
std::string ParseModelSettings(std::string_view config_json, ModelSettings* settings);

}  // namespace inferd::pytorch

#endif  // INFERD_BACKENDS_PYTORCH_MODEL_SETTINGS_H_

// What the PyTorch backend reads from a model's configuration: the compiled
// backends' common settings (common/model_settings.h: the tensors,
// max_batch_size, the model file name, the instance count, the `parameters`),
// parsed from the JSON that INFERD_ModelConfig returns. Pure; thread-safe.
#ifndef INFERD_BACKENDS_PYTORCH_MODEL_SETTINGS_H_
#define INFERD_BACKENDS_PYTORCH_MODEL_SETTINGS_H_

#include <string>
#include <string_view>

#include "common/model_settings.h"
#include "torch_types.h"

namespace inferd::pytorch {

using backend_common::ModelSettings;  // "" default_model_filename means model.pt
using backend_common::TensorSpec;     // never with a reshape here

// Parses the configuration JSON into `settings`. Returns "" on success, else
// what is wrong (a datatype LibTorch has no type for, a `reshape`, which the
// backend does not apply, a sequence batcher's control tensors), naming the
// tensor.
std::string ParseModelSettings(std::string_view config_json, ModelSettings* settings);

}  // namespace inferd::pytorch

#endif  // INFERD_BACKENDS_PYTORCH_MODEL_SETTINGS_H_

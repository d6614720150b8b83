// Checks of a config's tensors: input, output, batch_input and batch_output
// (names, datatypes, dims, reshape, shape tensors, formats, label files).
// Part of ValidateModelConfig. Stateless; thread-safe.
#ifndef INFERD_CORE_CONFIG_TENSOR_CONFIG_VALIDATOR_H_
#define INFERD_CORE_CONFIG_TENSOR_CONFIG_VALIDATOR_H_

#include "inferd/base/status.h"
#include "core/config/config_error.h"

namespace inferd {

// OK, or the first problem found, as an error naming the tensor and field.
Status ValidateModelTensors(const ConfigErrors& errors);

}  // namespace inferd

#endif  // INFERD_CORE_CONFIG_TENSOR_CONFIG_VALIDATOR_H_

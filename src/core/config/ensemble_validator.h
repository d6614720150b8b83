// Validation of an ensemble's step graph against the configurations of its
// composing models: what can only be checked once they are known (at load).
// The per-file checks (platform, presence of steps and maps, no
// instance_group) are in scheduling_config_validator.h. Stateless; thread-safe.
#ifndef INFERD_CORE_CONFIG_ENSEMBLE_VALIDATOR_H_
#define INFERD_CORE_CONFIG_ENSEMBLE_VALIDATOR_H_

#include <cstdint>
#include <functional>
#include <string>

#include "inferd/base/status.h"
#include "model_config.pb.h"

namespace inferd {

// The configuration of composing model `name` at `version` (-1: the latest),
// or an error saying why there is none (not loaded, unknown). The pointer
// must stay valid for the duration of the validation. ValidateEnsemble asks
// once per step, in step order, until a lookup fails.
using ComposingConfigLookup =
    std::function<StatusOr<const inference::ModelConfig*>(const std::string& name,
                                                          int64_t version)>;

// Checks `ensemble` (normalized, platform "ensemble"): every step's model is
// found and is not the ensemble itself; every input_map key is an input and
// every output_map key an output of the step's model, and every required
// input of that model is mapped; every ensemble tensor is produced once (by an
// ensemble input or one step output); every step input is produced; the
// steps form no cycle; every ensemble output is produced by a step;
// datatypes and shapes agree where a tensor flows; and max_batch_size is no
// larger than any composing model's; a decoupled composing model needs a
// decoupled ensemble. Errors are INVALID_ARG and name the
// ensemble, the step (index and model) and the tensor.
Status ValidateEnsemble(const inference::ModelConfig& ensemble,
                        const ComposingConfigLookup& composing);

}  // namespace inferd

#endif  // INFERD_CORE_CONFIG_ENSEMBLE_VALIDATOR_H_

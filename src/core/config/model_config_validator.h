// Checking a normalized model configuration before the model is loaded.
// Every error is InvalidArg and names the model, the file and the field:
//   model 'simple' (/repo/simple/config.pbtxt): input 'INPUT0' dims[1]: must be -1 or positive, got 0
// Stateless; thread-safe.
#ifndef INFERD_CORE_CONFIG_MODEL_CONFIG_VALIDATOR_H_
#define INFERD_CORE_CONFIG_MODEL_CONFIG_VALIDATOR_H_

#include "inferd/base/status.h"
#include "core/config/config_context.h"
#include "model_config.pb.h"

namespace inferd {

// Validates `config` as NormalizeModelConfig left it: name matches the
// folder; platform and backend present and consistent; max_batch_size >= 0;
// inputs and outputs (see tensor_config_validator.h); version policy;
// instance groups against ctx.gpu_count; the scheduling choice (see
// scheduling_config_validator.h); model warmup samples. Returns the first
// problem found. Files named by the config (label_filename, warmup data) are
// looked up under ctx.model_dir when it is set.
Status ValidateModelConfig(const ConfigContext& ctx, const inference::ModelConfig& config);

}  // namespace inferd

#endif  // INFERD_CORE_CONFIG_MODEL_CONFIG_VALIDATOR_H_

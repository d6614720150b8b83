// Checks a submitted request against its model's configuration and prepares it
// for the backend: datatypes, shapes (batch dimension, variable dimensions,
// reshape), data sizes (BYTES length prefixes included), missing and unknown
// inputs, requested outputs. Every error names the model and the tensor.
#ifndef INFERD_CORE_INFER_REQUEST_VALIDATOR_H_
#define INFERD_CORE_INFER_REQUEST_VALIDATOR_H_

#include "inferd/base/status.h"
#include "model_config.pb.h"

namespace inferd {

class InferenceRequest;
struct InputTensor;

// Validates `request` for a model with `config` and fills request->batch_size,
// each input's backend shape (after reshape) and, unless `all_outputs` is used,
// request->outputs. `all_outputs` is shared when the client names no output.
Status ValidateRequest(const inference::ModelConfig& config,
                       const std::shared_ptr<const std::vector<std::string>>& all_outputs,
                       InferenceRequest* request);

// Checks that a BYTES input's buffers hold exactly `element_count` elements,
// each a 4-byte little-endian length followed by that many bytes.
Status ValidateBytesTensor(const InputTensor& input, int64_t element_count);

}  // namespace inferd

#endif  // INFERD_CORE_INFER_REQUEST_VALIDATOR_H_

// What a repeat model's configuration says, read once when the model
// initializes: the tensors each response carries and the model-wide defaults
// of the request parameters (request_options.h). Constant afterwards.
#ifndef INFERD_BACKENDS_REPEAT_MODEL_SETTINGS_H_
#define INFERD_BACKENDS_REPEAT_MODEL_SETTINGS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "inferd/backend.h"

namespace inferd::repeat {

struct ModelSettings {
  std::string model_name;
  INFERD_DataType datatype = INFERD_TYPE_INVALID;  // of input 0 and output 0
  std::string value_output;  // config output 0: response k carries [value k]
  std::string index_output;  // config output 1, "" when absent: [k] as INT32
  // max_batch_size > 0: outputs get a leading batch dimension of 1, as the
  // server expects of a batching model's outputs.
  bool batched = false;
  int64_t delay_ms = 0;     // parameter "delay_ms": the default wait before each response
  std::string record_file;  // parameter "record_file": the default record file
};

// Reads the model configuration `json` (INFERD_ModelConfig's form). An error
// naming the model when it is not decoupled, since its requests get many
// responses, or when its inputs and outputs are not what the backend sends.
INFERD_Error* ReadModelSettings(const std::string& model_name, const char* json, size_t size,
                                ModelSettings* settings);

}  // namespace inferd::repeat

#endif  // INFERD_BACKENDS_REPEAT_MODEL_SETTINGS_H_

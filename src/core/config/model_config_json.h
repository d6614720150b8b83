// The model configuration as JSON, in the shape Triton's config endpoint
// uses: proto field names, every scalar and repeated field present even when
// it holds its default, unset sub-messages left out, only the chosen member of
// a oneof, enums by name, maps as objects, 64-bit integers as JSON numbers.
// Stateless; thread-safe.
#ifndef INFERD_CORE_CONFIG_MODEL_CONFIG_JSON_H_
#define INFERD_CORE_CONFIG_MODEL_CONFIG_JSON_H_

#include <string>
#include <string_view>

#include "inferd/base/status.h"
#include "model_config.pb.h"

namespace inferd {

// `config` as one line of JSON (map entries sorted by key).
std::string ModelConfigToJson(const inference::ModelConfig& config);

// Reads JSON of the shape ModelConfigToJson writes (camelCase names and
// 64-bit integers as strings are accepted too) into `config`, replacing its
// contents. Unknown fields are errors. On error returns InvalidArg naming
// what failed, and `config` is unspecified.
Status ModelConfigFromJson(std::string_view json, inference::ModelConfig* config);

}  // namespace inferd

#endif  // INFERD_CORE_CONFIG_MODEL_CONFIG_JSON_H_

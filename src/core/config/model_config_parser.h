// Reading config.pbtxt: protobuf text format into inference::ModelConfig,
// with errors that point at the file, line and column. Stateless; thread-safe.
#ifndef INFERD_CORE_CONFIG_MODEL_CONFIG_PARSER_H_
#define INFERD_CORE_CONFIG_MODEL_CONFIG_PARSER_H_

#include <filesystem>
#include <string_view>

#include "inferd/base/status.h"
#include "model_config.pb.h"

namespace inferd {

// Parses `text` as a ModelConfig in protobuf text format. Unknown field names,
// unknown enum values and repeated non-repeated fields are errors. On a syntax
// error returns InvalidArg "<file_label>:<line>:<column>: <parser message>",
// line and column counted from 1.
StatusOr<inference::ModelConfig> ParseModelConfigText(std::string_view text,
                                                      std::string_view file_label);

// Reads and parses the file at `path` (labelled by its path in errors).
// NotFound when the file does not exist; InvalidArg when it cannot be read or
// does not parse.
StatusOr<inference::ModelConfig> ReadModelConfigFile(const std::filesystem::path& path);

}  // namespace inferd

#endif  // INFERD_CORE_CONFIG_MODEL_CONFIG_PARSER_H_

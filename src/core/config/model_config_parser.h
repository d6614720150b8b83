// Reading config.pbtxt: protobuf text format into inference::ModelConfig,
// with errors that point at the file, line and column. Stateless; thread-safe.
#ifndef INFERD_CORE_CONFIG_MODEL_CONFIG_PARSER_H_
#define INFERD_CORE_CONFIG_MODEL_CONFIG_PARSER_H_

#include <filesystem>
#include <memory>
#include <string_view>

#include "core/config/config_locations.h"
#include "inferd/base/status.h"
#include "model_config.pb.h"

namespace inferd {

// Parses `text` as a ModelConfig in protobuf text format. Unknown field names,
// unknown enum values and repeated non-repeated fields are errors. On a syntax
// error returns InvalidArg "<file_label>:<line>:<column>: <parser message>",
// line and column counted from 1, followed by kFixSeparator and the closest
// valid name for a misspelt field or enum value. When `locations` is given,
// it receives where each field was written.
StatusOr<inference::ModelConfig> ParseModelConfigText(
    std::string_view text, std::string_view file_label,
    std::shared_ptr<const ConfigLocations>* locations = nullptr);

// Reads and parses the file at `path` (labelled by its path in errors).
// NotFound when the file does not exist; InvalidArg when it cannot be read or
// does not parse.
StatusOr<inference::ModelConfig> ReadModelConfigFile(
    const std::filesystem::path& path, std::shared_ptr<const ConfigLocations>* locations = nullptr);

}  // namespace inferd

#endif  // INFERD_CORE_CONFIG_MODEL_CONFIG_PARSER_H_

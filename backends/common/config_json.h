// Reading a model's configuration the way every backend does: the server hands
// it over as a protobuf message, the backend asks for its JSON (Triton's
// ModelConfig field names) and reads the members it needs. Integers may come
// as JSON numbers or as strings of digits (protobuf's JSON writes 64-bit
// integers as strings), parameters as `{"key": {"string_value": "..."}}`.
#ifndef INFERD_BACKENDS_COMMON_CONFIG_JSON_H_
#define INFERD_BACKENDS_COMMON_CONFIG_JSON_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rapidjson/document.h"

namespace inferd::backend_common {

using JsonValue = rapidjson::Value;

// Member `name` of `object`, or null when `object` is no object or lacks it.
const JsonValue* Member(const JsonValue& object, const char* name);

// Member `name` when it is a string, else "".
std::string StringMember(const JsonValue& object, const char* name);

// An integer written as a JSON number or as a string of digits; none otherwise.
std::optional<int64_t> AsInt(const JsonValue& value);

// `parameters[key].string_value` of a configuration: none when the key is
// absent, "" when it has no string value.
std::optional<std::string> Parameter(const JsonValue& config, const char* key);

// Every `parameters` entry's string value ("" when it has none), by key.
std::map<std::string, std::string> Parameters(const JsonValue& config);

// Appends the integers of `array` (a `dims` member; null means none) to
// `*dims`. Returns "" or a problem beginning with `what`.
std::string ParseDims(const JsonValue* array, const std::string& what, std::vector<int64_t>* dims);

// The instances every `instance_group` asks for together (a group without
// `count` counts 1; no groups or a total below 1 gives 1).
int InstanceCount(const JsonValue& config);

}  // namespace inferd::backend_common

#endif  // INFERD_BACKENDS_COMMON_CONFIG_JSON_H_

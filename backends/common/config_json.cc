// Reading a model's configuration JSON (see config_json.h).
#include "common/config_json.h"

#include <charconv>

namespace inferd::backend_common {

const JsonValue* Member(const JsonValue& object, const char* name) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

std::string StringMember(const JsonValue& object, const char* name) {
  const JsonValue* member = Member(object, name);
  return member != nullptr && member->IsString() ? member->GetString() : "";
}

std::optional<int64_t> AsInt(const JsonValue& value) {
  if (value.IsInt64()) return value.GetInt64();
  if (value.IsUint64()) return static_cast<int64_t>(value.GetUint64());
  if (value.IsString()) {
    const char* begin = value.GetString();
    const char* end = begin + value.GetStringLength();
    int64_t parsed = 0;
    auto [rest, error] = std::from_chars(begin, end, parsed);
    if (error == std::errc() && rest == end && rest != begin) return parsed;
  }
  return std::nullopt;
}

std::optional<std::string> Parameter(const JsonValue& config, const char* key) {
  const JsonValue* parameters = Member(config, "parameters");
  const JsonValue* entry = parameters != nullptr ? Member(*parameters, key) : nullptr;
  if (entry == nullptr) return std::nullopt;
  return StringMember(*entry, "string_value");
}

std::map<std::string, std::string> Parameters(const JsonValue& config) {
  std::map<std::string, std::string> out;
  const JsonValue* parameters = Member(config, "parameters");
  if (parameters == nullptr || !parameters->IsObject()) return out;
  for (const auto& entry : parameters->GetObject()) {
    out[entry.name.GetString()] = StringMember(entry.value, "string_value");
  }
  return out;
}

std::string ParseDims(const JsonValue* array, const std::string& what, std::vector<int64_t>* dims) {
  if (array == nullptr) return "";
  if (!array->IsArray()) return what + " is not an array";
  for (const JsonValue& dim : array->GetArray()) {
    std::optional<int64_t> value = AsInt(dim);
    if (!value) return what + " holds a value that is not an integer";
    dims->push_back(*value);
  }
  return "";
}

int InstanceCount(const JsonValue& config) {
  const JsonValue* groups = Member(config, "instance_group");
  if (groups == nullptr || !groups->IsArray()) return 1;
  int64_t count = 0;
  for (const JsonValue& group : groups->GetArray()) {
    const JsonValue* n = Member(group, "count");
    count += n != nullptr ? AsInt(*n).value_or(1) : 1;
  }
  return count > 0 ? static_cast<int>(count) : 1;
}

}  // namespace inferd::backend_common

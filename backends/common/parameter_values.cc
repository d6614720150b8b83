// Parameter value parsing (see parameter_values.h).
#include "common/parameter_values.h"

#include <cctype>
#include <charconv>
#include <string>

namespace inferd::backend_common {

std::optional<int> ParseInt(std::string_view text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<bool> ParseSwitch(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "1" || lower == "true" || lower == "on") return true;
  if (lower == "0" || lower == "false" || lower == "off") return false;
  return std::nullopt;
}

}  // namespace inferd::backend_common

namespace inferd::backend_common {

std::optional<int> ParameterReader::Int(const std::string& key, const char* expected,
                                        int minimum) {
  auto it = parameters_.find(key);
  if (it == parameters_.end()) return std::nullopt;
  const std::optional<int> value = ParseInt(it->second);
  if (value && *value >= minimum) return value;
  Refuse(key, it->second, expected);
  return std::nullopt;
}

std::optional<bool> ParameterReader::Switch(const std::string& key, const char* expected) {
  auto it = parameters_.find(key);
  if (it == parameters_.end()) return std::nullopt;
  const std::optional<bool> value = ParseSwitch(it->second);
  if (!value) Refuse(key, it->second, expected);
  return value;
}

void ParameterReader::Refuse(const std::string& key, const std::string& text,
                             const char* expected) {
  if (keep_ == Keep::kFirst && !error_.empty()) return;
  error_ = "parameter '" + key + "' is '" + text + "', not " + expected;
}

}  // namespace inferd::backend_common

// Reading a model's `parameters` (string values) as integers and switches,
// collecting the refusal of a malformed one ("parameter 'k' is 'v', not
// <what was expected>") for the backend to report. Pure; not thread-safe
// (one reader per settings resolution).
#ifndef INFERD_BACKENDS_COMMON_PARAMETER_VALUES_H_
#define INFERD_BACKENDS_COMMON_PARAMETER_VALUES_H_

#include <climits>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace inferd::backend_common {

// `text` as a whole int; nullopt when it is not one.
std::optional<int> ParseInt(std::string_view text);

// "1", "true", "on" (any case) as true; "0", "false", "off" as false; else nullopt.
std::optional<bool> ParseSwitch(std::string_view text);

class ParameterReader {
 public:
  // Which refusal error() holds when several parameters are malformed.
  enum class Keep { kFirst, kLast };

  ParameterReader(const std::map<std::string, std::string>& parameters, Keep keep)
      : parameters_(parameters), keep_(keep) {}

  // Parameter `key` as an int >= `minimum`; nullopt when unset or malformed
  // (then refused as "not <expected>").
  std::optional<int> Int(const std::string& key, const char* expected, int minimum = INT_MIN);
  // Parameter `key` as a switch (ParseSwitch); nullopt when unset or malformed.
  std::optional<bool> Switch(const std::string& key, const char* expected);

  // "" when every parameter read was well-formed.
  const std::string& error() const { return error_; }

 private:
  void Refuse(const std::string& key, const std::string& text, const char* expected);

  const std::map<std::string, std::string>& parameters_;
  const Keep keep_;
  std::string error_;
};

}  // namespace inferd::backend_common

#endif  // INFERD_BACKENDS_COMMON_PARAMETER_VALUES_H_

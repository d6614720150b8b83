#include "http/exact_json.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

namespace inferd::http {

bool ExactJsonNumber(std::string_view text, rapidjson::Value* out) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  const bool negative = !text.empty() && text.front() == '-';
  if (text.find_first_of(".eEIN") == std::string_view::npos) {
    if (negative) {
      int64_t i = 0;
      const auto [ptr, ec] = std::from_chars(begin, end, i);
      if (ec == std::errc() && ptr == end && i != 0) {
        out->SetInt64(i);
        return true;
      }
    } else {
      uint64_t u = 0;
      const auto [ptr, ec] = std::from_chars(begin, end, u);
      if (ec == std::errc() && ptr == end) {
        out->SetUint64(u);
        return true;
      }
    }
  }
  double d = 0;
  const auto [ptr, ec] = std::from_chars(begin, end, d);
  if (ec == std::errc() && ptr == end) {
    out->SetDouble(d);
    return true;
  }
  // Out of range (or a spelling from_chars does not take): strtod tells an
  // overflow (an error, as RapidJSON's) from an underflow (0 or a subnormal,
  // correctly rounded). Rare, so the copy it needs for a terminator is cheap.
  const std::string copy(text);
  d = std::strtod(copy.c_str(), nullptr);
  if (std::isinf(d) && text.find_first_of("Ii") == std::string_view::npos) return false;
  out->SetDouble(d);
  return true;
}

}  // namespace inferd::http

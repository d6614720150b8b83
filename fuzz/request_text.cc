#include "fuzz/request_text.h"

#include <cctype>
#include <cstdio>

namespace inferd::fuzz {

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned char>(c));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string UrlEscape(const std::string& text) {
  std::string out;
  for (const unsigned char c : text) {
    char escaped[4];
    std::snprintf(escaped, sizeof escaped, "%%%02X", c);
    out += (std::isalnum(c) || c == '_' || c == '-') ? std::string(1, static_cast<char>(c))
                                                     : std::string(escaped);
  }
  return out;
}

}  // namespace inferd::fuzz

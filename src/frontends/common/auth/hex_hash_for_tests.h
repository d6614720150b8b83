// Tests only: the SHA-256 of a key as an auth file holds it (64 hex digits).
#ifndef INFERD_FRONTENDS_COMMON_AUTH_HEX_HASH_FOR_TESTS_H_
#define INFERD_FRONTENDS_COMMON_AUTH_HEX_HASH_FOR_TESTS_H_

#include <string>
#include <string_view>

#include "common/auth/key_table.h"

namespace inferd::auth {

inline std::string HexHash(std::string_view key) {
  static const char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char byte : HashKey(key)) {
    hex.push_back(kDigits[byte >> 4]);
    hex.push_back(kDigits[byte & 15]);
  }
  return hex;
}

}  // namespace inferd::auth

#endif  // INFERD_FRONTENDS_COMMON_AUTH_HEX_HASH_FOR_TESTS_H_

// The hashes, MACs and encodings request signing and download checks need
// (OpenSSL's libcrypto underneath): SHA-256 and HMAC-SHA256 for AWS SigV4
// and Azure Shared Key, hex and base64, and the percent-encoding of URL
// paths and query values that signatures are computed over (a download's
// checksums are checksum.h's). Pure functions.
#ifndef INFERD_CORE_CLOUD_CRYPTO_H_
#define INFERD_CORE_CLOUD_CRYPTO_H_

#include <string>
#include <string_view>

#include "inferd/base/status.h"

namespace inferd {

// Raw digest bytes.
std::string Sha256(std::string_view data);
std::string HmacSha256(std::string_view key, std::string_view data);

std::string HexEncode(std::string_view bytes);  // lower case
std::string Base64Encode(std::string_view bytes);
// Standard base64 (padding optional); nullopt-like error for bad input.
StatusOr<std::string> Base64Decode(std::string_view text);

// RFC 3986 percent-encoding: unreserved characters (A-Z a-z 0-9 - _ . ~)
// stay, every other byte becomes %XX (upper-case hex); '/' stays too unless
// `encode_slash` (an object key in a path keeps its slashes; a query value
// does not).
std::string UriEncode(std::string_view text, bool encode_slash);

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_CRYPTO_H_

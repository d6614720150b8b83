// JSON Web Tokens signed with RS256 (RFC 7515/7519): what a Google service
// account sends the OAuth2 token endpoint. RSASSA-PKCS1-v1_5 with SHA-256 on
// OpenSSL's libcrypto. Pure functions; thread-safe.
#ifndef INFERD_CORE_CLOUD_JWT_SIGNER_H_
#define INFERD_CORE_CLOUD_JWT_SIGNER_H_

#include <string>
#include <string_view>

#include "inferd/base/status.h"

namespace inferd {

// RFC 4648 section 5 (URL and file name safe alphabet), without padding.
std::string Base64UrlEncode(std::string_view bytes);

// The RS256 signature of `data` with the RSA private key `private_key_pem`
// (PKCS#8 "BEGIN PRIVATE KEY", as Google's files hold it, or PKCS#1).
// InvalidArg when the key does not parse as an RSA private key.
StatusOr<std::string> SignRs256(std::string_view private_key_pem, std::string_view data);

// base64url(header) "." base64url(claims) "." base64url(RS256 of the two).
StatusOr<std::string> SignJwt(std::string_view header_json, std::string_view claims_json,
                              std::string_view private_key_pem);

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_JWT_SIGNER_H_

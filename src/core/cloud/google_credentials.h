// Google credentials files (GOOGLE_APPLICATION_CREDENTIALS, or the "gs" paths
// of TRITON_CLOUD_CREDENTIAL_PATH, as cloud_credentials.h finds them) and what
// the OAuth2 token endpoint is sent for each kind: a service account signs a
// JWT (RFC 7523) with its RSA key; an authorized user (`gcloud auth
// application-default login`) sends its refresh token; on Compute Engine (and
// GKE, Cloud Run), the metadata server hands out the attached service
// account's token for a plain GET. Pure functions; the exchange and the
// token's reuse are google_token_source.h's.
#ifndef INFERD_CORE_CLOUD_GOOGLE_CREDENTIALS_H_
#define INFERD_CORE_CLOUD_GOOGLE_CREDENTIALS_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>

#include "inferd/base/status.h"

namespace inferd {

inline constexpr std::string_view kGoogleTokenUri = "https://oauth2.googleapis.com/token";
// Read-only access to objects: all a model repository needs.
inline constexpr std::string_view kGcsReadOnlyScope =
    "https://www.googleapis.com/auth/devstorage.read_only";

// {"type": "service_account", ...}
struct GoogleServiceAccount {
  std::string client_email;
  std::string private_key;     // PEM
  std::string private_key_id;  // the JWT's "kid"; may be empty
  std::string token_uri;       // the JWT's audience and where it is exchanged
};

// {"type": "authorized_user", ...}
struct GoogleAuthorizedUser {
  std::string client_id;
  std::string client_secret;
  std::string refresh_token;
  std::string token_uri;
};

// No file: the metadata server at `host` (GCE_METADATA_HOST, as Google's
// clients name it: "host[:port]", plain HTTP).
struct GoogleComputeMetadata {
  std::string host;
};

using GoogleCredentialsFile =
    std::variant<GoogleServiceAccount, GoogleAuthorizedUser, GoogleComputeMetadata>;

// The credentials in `json`; errors name `origin` (the file) and the field.
StatusOr<GoogleCredentialsFile> ParseGoogleCredentials(std::string_view json,
                                                       const std::string& origin);
StatusOr<GoogleCredentialsFile> ReadGoogleCredentialsFile(const std::filesystem::path& path);

// The JWT claims of a service account's token request at `now_s` (Unix
// seconds): iss, scope, aud (the token_uri), iat and exp an hour later.
std::string ServiceAccountClaims(const GoogleServiceAccount& account, std::string_view scope,
                                 int64_t now_s);
// The signed JWT: base64url(header) "." base64url(claims) "." base64url(RS256).
StatusOr<std::string> ServiceAccountAssertion(const GoogleServiceAccount& account,
                                              std::string_view scope, int64_t now_s);

// The form-encoded body of the token request for `credentials` at `now_s`,
// and the URI it is posted to; for the metadata server, a GET of `uri` with
// the header "Metadata-Flavor: Google" instead (no body).
struct TokenRequest {
  std::string uri;
  std::string body;
  bool metadata_server = false;
};
StatusOr<TokenRequest> MakeTokenRequest(const GoogleCredentialsFile& credentials, int64_t now_s);

// An access token the endpoint granted, and when it expires (Unix seconds).
struct AccessToken {
  std::string token;
  int64_t expires_at_s = 0;
};
// The endpoint's JSON answer {"access_token", "expires_in", "token_type"}.
StatusOr<AccessToken> ParseTokenResponse(std::string_view body, int64_t now_s);


}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_GOOGLE_CREDENTIALS_H_

// AWS Signature Version 4, written by hand (no AWS SDK is packaged for
// Debian 12): the canonical request, the string to sign, the derived
// signing key and the Authorization header, as AWS documents them
// ("Create a signed AWS API request"); sigv4_test.cc checks them against
// AWS's published examples. Pure functions.
#ifndef INFERD_CORE_CLOUD_SIGV4_H_
#define INFERD_CORE_CLOUD_SIGV4_H_

#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "core/cloud/http_client.h"

namespace inferd {

// The payload hash of a request without a body (SHA-256 of "").
inline constexpr char kEmptyPayloadSha256[] =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

struct SigV4Request {
  std::string method;
  std::string canonical_uri;  // the path, percent-encoded as sent ("/bucket/a%20b")
  std::vector<std::pair<std::string, std::string>> query;  // names and values, not encoded
  HttpHeaders headers;        // every header to sign, host and x-amz-date included
  std::string payload_hash;   // hex SHA-256 of the body, or "UNSIGNED-PAYLOAD"
};

struct SigV4Scope {
  std::string access_key;
  std::string secret_key;
  std::string region;
  std::string service;  // "s3"
};

// The query string as signed and sent: names and values encoded, sorted.
std::string CanonicalQuery(const std::vector<std::pair<std::string, std::string>>& query);
// The canonical request's text (its six lines).
std::string CanonicalRequest(const SigV4Request& request);
// "AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=..." for a
// request dated `amz_date` ("20150830T123600Z").
std::string SigV4Authorization(const SigV4Request& request, const SigV4Scope& scope,
                               const std::string& amz_date);
// `time` as x-amz-date's "YYYYMMDDTHHMMSSZ" (UTC).
std::string AmzDate(std::time_t time);

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_SIGV4_H_

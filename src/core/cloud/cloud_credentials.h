// The credentials of each cloud, found as Triton finds them. With
// TRITON_CLOUD_CREDENTIAL_PATH set, its JSON file holds, per cloud, entries
// keyed by a URL prefix ("" matches every URL); the longest key that starts
// the repository's URL wins:
//   {"s3": {"": {"key_id": "...", "secret_key": "...", "region": "...",
//                "session_token": "", "profile": ""},
//           "s3://bucket-2": {...}},
//    "gs": {"": "/path/to/service-account.json", "gs://bucket-2": "..."},
//    "as": {"as://account/container": {"account_str": "...", "account_key": "..."}}}
// Without the file, or when no key of it matches, each cloud's environment
// variables are read: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_SESSION_TOKEN, AWS_DEFAULT_REGION (or AWS_REGION), AWS_ENDPOINT_URL,
// AWS_PROFILE; GOOGLE_APPLICATION_CREDENTIALS; AZURE_STORAGE_ACCOUNT,
// AZURE_STORAGE_KEY. The environment is read through a function so tests
// give their own. Read once at startup; immutable after, so thread-safe.
#ifndef INFERD_CORE_CLOUD_CLOUD_CREDENTIALS_H_
#define INFERD_CORE_CLOUD_CLOUD_CREDENTIALS_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "inferd/base/status.h"

namespace inferd {

struct S3Credentials {
  std::string key_id;         // empty: anonymous (unsigned requests)
  std::string secret_key;
  std::string session_token;  // temporary credentials only
  std::string region;         // empty: us-east-1
  std::string profile;        // a profile of the AWS shared credentials file
  std::string endpoint;       // AWS_ENDPOINT_URL; the URL's own endpoint wins over it
};

struct GcsCredentials {
  std::string path;  // a service-account JSON file; empty: anonymous
};

struct AzureCredentials {
  std::string account_str;  // the storage account
  std::string account_key;  // its Shared Key (base64); empty: anonymous
};

// getenv, or a test's table: the value of a variable, nullopt when unset.
using EnvReader = std::function<std::optional<std::string>(const std::string&)>;
EnvReader ProcessEnvironment();

class CloudCredentials {
 public:
  // Reads TRITON_CLOUD_CREDENTIAL_PATH's file if the variable is set (an
  // unreadable or malformed file is an error naming it) and keeps `env` for
  // the fallbacks.
  static StatusOr<CloudCredentials> Load(EnvReader env);
  // From a credential file's JSON text (tests; `source` names it in errors).
  static StatusOr<CloudCredentials> FromJson(std::string_view json, std::string_view source,
                                             EnvReader env);

  // The credentials for the repository at `url` (its text, "s3://bucket/path").
  S3Credentials ForS3(std::string_view url) const;
  GcsCredentials ForGcs(std::string_view url) const;
  AzureCredentials ForAzure(std::string_view url) const;

  // The environment these were loaded with (a store may read more of it).
  const EnvReader& env() const { return env_; }

 private:
  explicit CloudCredentials(EnvReader env) : env_(std::move(env)) {}
  std::string Env(const std::string& name) const;

  EnvReader env_;
  // Per cloud, URL prefix -> entry, from the credential file.
  std::map<std::string, S3Credentials> s3_;
  std::map<std::string, GcsCredentials> gs_;
  std::map<std::string, AzureCredentials> as_;
};

// The entry of `entries` whose key is the longest prefix of `url`, or null.
template <typename T>
const T* LongestPrefixMatch(const std::map<std::string, T>& entries, std::string_view url) {
  const T* best = nullptr;
  size_t best_length = 0;
  for (const auto& [prefix, entry] : entries) {
    if (url.substr(0, prefix.size()) != prefix) continue;
    if (best == nullptr || prefix.size() > best_length) {
      best = &entry;
      best_length = prefix.size();
    }
  }
  return best;
}

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_CLOUD_CREDENTIALS_H_

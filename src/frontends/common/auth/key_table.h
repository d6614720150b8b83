// The API keys of an auth file (--auth-file, docs/security.md): each key's
// name, the SHA-256 of its secret, its scopes, the models it may infer with,
// its quota and its priority. Parsed whole or not at all, so a bad file
// changes nothing. The secrets themselves are never held: a presented key is
// hashed and compared with every stored hash in constant time. Immutable once
// built; thread-safe.
#ifndef INFERD_FRONTENDS_COMMON_AUTH_KEY_TABLE_H_
#define INFERD_FRONTENDS_COMMON_AUTH_KEY_TABLE_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/auth/scope.h"
#include "inferd/base/status.h"

namespace inferd::auth {

using Sha256 = std::array<unsigned char, 32>;

// SHA-256 of `text`.
Sha256 HashKey(std::string_view text);

struct ApiKey {
  std::string name;  // names the key in logs and metrics, never the secret
  Sha256 sha256{};
  ScopeSet scopes = 0;
  std::vector<std::string> models;  // globs (model_glob.h) infer is limited to; empty: any
  double rate_limit_rps = 0;        // requests a second; 0: no quota
  double burst = 0;                 // the quota's bucket size; 0: max(1, rate_limit_rps)
  std::optional<uint32_t> priority;  // the scheduler priority of its infer requests
  int line = 0;                     // where the file declares it

  // Whether infer with `model` is allowed (scope aside).
  bool AllowsModel(std::string_view model) const;
};

class KeyTable {
 public:
  KeyTable() = default;

  // The keys of the auth file `path`, whose content is `text`. INVALID_ARG
  // naming `path`:<line> and the field for malformed JSON, an unknown field,
  // scope or a duplicate name or hash, a hash that is not 64 hex digits.
  static StatusOr<KeyTable> Parse(const std::string& path, std::string text);
  // Reads `path` and parses it; INVALID_ARG naming it when it cannot be read.
  static StatusOr<KeyTable> Read(const std::string& path);

  // The key whose hash is SHA-256(`presented`); null when none. Every stored
  // hash is compared, whichever matches, with a comparison whose time does
  // not depend on where the bytes differ.
  const ApiKey* Find(std::string_view presented) const;

  const std::vector<ApiKey>& keys() const { return keys_; }

 private:
  std::vector<ApiKey> keys_;
};

}  // namespace inferd::auth

#endif  // INFERD_FRONTENDS_COMMON_AUTH_KEY_TABLE_H_

// The OAuth2 access token that GCS requests carry ("Authorization: Bearer"):
// obtained from the credentials' token endpoint (google_credentials.h says
// what is sent) through the stores' HttpClient, so the exchange is retried
// like any request, and reused until kRefreshMarginS before it expires. One
// exchange at a time: concurrent downloads that find the token stale wait
// for the one refresh instead of each asking. Thread-safe.
#ifndef INFERD_CORE_CLOUD_GOOGLE_TOKEN_SOURCE_H_
#define INFERD_CORE_CLOUD_GOOGLE_TOKEN_SOURCE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/cloud/google_credentials.h"
#include "core/cloud/http_client.h"
#include "inferd/base/mutex.h"
#include "inferd/base/status.h"

namespace inferd {

// Calendar time in Unix seconds: what JWT claims and token lifetimes count in.
using UnixSecondsClock = std::function<int64_t()>;
UnixSecondsClock SystemUnixSeconds();

class GoogleTokenSource {
 public:
  // A token this close to its expiry is renewed (Google's own clients use 5 min).
  static constexpr int64_t kRefreshMarginS = 300;

  // `http` outlives the source.
  GoogleTokenSource(GoogleCredentialsFile credentials, const HttpClient* http,
                    UnixSecondsClock now = SystemUnixSeconds());

  // A token valid for at least kRefreshMarginS more seconds, fetched if the
  // one held is not. UNAVAILABLE (the endpoint's error code and words, its
  // URI) when the endpoint refuses or cannot be reached.
  StatusOr<std::string> Token() EXCLUDES(mu_);

  // GCS refused `token` (401: revoked, or expired early): the next Token()
  // fetches another, unless one has replaced `token` meanwhile (so that many
  // downloads refused together renew it once).
  void Reject(const std::string& token) EXCLUDES(mu_);

  // How many exchanges were made (tests).
  int exchanges() const EXCLUDES(mu_);

 private:
  StatusOr<AccessToken> Exchange(int64_t now_s) const;

  const GoogleCredentialsFile credentials_;
  const HttpClient* const http_;
  const UnixSecondsClock now_;
  mutable Mutex mu_;
  std::optional<AccessToken> token_ GUARDED_BY(mu_);
  int exchanges_ GUARDED_BY(mu_) = 0;
};

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_GOOGLE_TOKEN_SOURCE_H_

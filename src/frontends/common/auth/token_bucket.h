// A per-key quota (the auth file's "rate_limit_rps"): a token bucket that
// refills at `rate` tokens a second up to `burst`, each request taking one.
// Time is passed in, so tests run it in simulated time. Thread-safe.
#ifndef INFERD_FRONTENDS_COMMON_AUTH_TOKEN_BUCKET_H_
#define INFERD_FRONTENDS_COMMON_AUTH_TOKEN_BUCKET_H_

#include <chrono>

#include "inferd/base/mutex.h"

namespace inferd::auth {

class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;

  // Full at `now`. `rate` > 0 tokens a second; `burst` >= 1 tokens at most.
  TokenBucket(double rate, double burst, Clock::time_point now);
  TokenBucket(const TokenBucket&) = delete;
  TokenBucket& operator=(const TokenBucket&) = delete;

  // Takes a token at `now`: true when there was one; else false and
  // *retry_after is how long until one will be (at least 1 s as HTTP's
  // Retry-After counts whole seconds, rounded up).
  bool TryTake(Clock::time_point now, std::chrono::seconds* retry_after);

  double rate() const { return rate_; }
  double burst() const { return burst_; }

 private:
  // Constant after construction.
  const double rate_;
  const double burst_;

  Mutex mu_;
  double tokens_ GUARDED_BY(mu_);
  Clock::time_point refilled_at_ GUARDED_BY(mu_);
};

}  // namespace inferd::auth

#endif  // INFERD_FRONTENDS_COMMON_AUTH_TOKEN_BUCKET_H_

#include "common/auth/token_bucket.h"

#include <algorithm>
#include <cmath>

namespace inferd::auth {

TokenBucket::TokenBucket(double rate, double burst, Clock::time_point now)
    : rate_(rate), burst_(std::max(1.0, burst)), tokens_(burst_), refilled_at_(now) {}

bool TokenBucket::TryTake(Clock::time_point now, std::chrono::seconds* retry_after) {
  MutexLock lock(&mu_);
  if (now > refilled_at_) {
    const double elapsed = std::chrono::duration<double>(now - refilled_at_).count();
    tokens_ = std::min(burst_, tokens_ + elapsed * rate_);
    refilled_at_ = now;
  }
  if (tokens_ >= 1.0) {
    tokens_ -= 1.0;
    return true;
  }
  const double wait = (1.0 - tokens_) / rate_;
  *retry_after = std::chrono::seconds(std::max<int64_t>(1, static_cast<int64_t>(std::ceil(wait))));
  return false;
}

}  // namespace inferd::auth

#include "http/connection_deadline.h"

namespace inferd::http {

bool ConnectionDeadline::Set(Duration limit, TimePoint now) {
  if (limit <= Duration::zero()) {
    deadline_.reset();
    return false;
  }
  deadline_ = now + limit;
  // A pending wake-up at or before the deadline will see it; a later one
  // would see it too late.
  if (wake_at_ && *wake_at_ <= *deadline_) return false;
  wake_at_ = deadline_;
  return true;
}

ConnectionDeadline::Wake ConnectionDeadline::OnWake(TimePoint now) {
  if (!deadline_) {
    wake_at_.reset();
    return Wake::kIdle;
  }
  if (now >= *deadline_) {
    Stop();
    return Wake::kExpired;
  }
  wake_at_ = deadline_;
  return Wake::kWait;
}

}  // namespace inferd::http

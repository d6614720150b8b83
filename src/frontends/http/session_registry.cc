// Registration of open connections for a graceful stop.
#include "http/session_registry.h"

#include <vector>

namespace inferd::http {

SessionRegistry::Handle SessionRegistry::Add(std::weak_ptr<HttpSession> session) {
  MutexLock lock(&mu_);
  size_.fetch_add(1, std::memory_order_relaxed);
  return sessions_.insert(sessions_.end(), std::move(session));
}

void SessionRegistry::Remove(Handle handle) {
  MutexLock lock(&mu_);
  sessions_.erase(handle);
  size_.fetch_sub(1, std::memory_order_relaxed);
  if (sessions_.empty()) empty_.SignalAll();
}

void SessionRegistry::ForEach(const std::function<void(HttpSession&)>& fn) {
  std::vector<std::shared_ptr<HttpSession>> alive;
  {
    MutexLock lock(&mu_);
    alive.reserve(sessions_.size());
    for (const auto& weak : sessions_) {
      if (auto session = weak.lock()) alive.push_back(std::move(session));
    }
  }
  for (const auto& session : alive) fn(*session);
}

bool SessionRegistry::WaitUntilEmpty(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  MutexLock lock(&mu_);
  while (!sessions_.empty()) {
    if (!empty_.WaitUntil(&mu_, deadline)) return sessions_.empty();
  }
  return true;
}

}  // namespace inferd::http

// Registration of open connections for a graceful stop.
#include "http/session_registry.h"

#include <vector>

namespace inferd::http {

SessionRegistry::Handle SessionRegistry::Add(std::weak_ptr<HttpSession> session) {
  std::lock_guard<std::mutex> lock(mu_);
  return sessions_.insert(sessions_.end(), std::move(session));
}

void SessionRegistry::Remove(Handle handle) {
  std::lock_guard<std::mutex> lock(mu_);
  sessions_.erase(handle);
  if (sessions_.empty()) empty_.notify_all();
}

void SessionRegistry::ForEach(const std::function<void(HttpSession&)>& fn) {
  std::vector<std::shared_ptr<HttpSession>> alive;
  {
    std::lock_guard<std::mutex> lock(mu_);
    alive.reserve(sessions_.size());
    for (const auto& weak : sessions_) {
      if (auto session = weak.lock()) alive.push_back(std::move(session));
    }
  }
  for (const auto& session : alive) fn(*session);
}

bool SessionRegistry::WaitUntilEmpty(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return empty_.wait_for(lock, timeout, [this] { return sessions_.empty(); });
}

}  // namespace inferd::http

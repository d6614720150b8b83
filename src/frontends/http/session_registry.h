// The set of open HTTP connections, so HttpServer::Stop can reach each one.
// Touched only when a connection opens or closes, never per request.
// Thread-safe; guarded by mu_.
#ifndef INFERD_FRONTENDS_HTTP_SESSION_REGISTRY_H_
#define INFERD_FRONTENDS_HTTP_SESSION_REGISTRY_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <list>
#include <memory>

#include "inferd/base/mutex.h"
#include "inferd/base/thread_annotations.h"

namespace inferd::http {

class HttpSession;

class SessionRegistry {
 public:
  using Handle = std::list<std::weak_ptr<HttpSession>>::iterator;

  SessionRegistry() = default;
  SessionRegistry(const SessionRegistry&) = delete;
  SessionRegistry& operator=(const SessionRegistry&) = delete;

  // Adds a session; keep the handle to remove it.
  Handle Add(std::weak_ptr<HttpSession> session) EXCLUDES(mu_);
  // Removes a session (from its destructor).
  void Remove(Handle handle) EXCLUDES(mu_);
  // Calls `fn` for every session still alive, outside the lock.
  void ForEach(const std::function<void(HttpSession&)>& fn) EXCLUDES(mu_);
  // Waits until no session is left; false when `timeout` ran out first.
  bool WaitUntilEmpty(std::chrono::milliseconds timeout) EXCLUDES(mu_);
  // Sessions registered now (--http-max-connections counts them); lock-free.
  size_t size() const { return size_.load(std::memory_order_relaxed); }

 private:
  Mutex mu_;
  CondVar empty_;  // signalled when sessions_ empties
  std::list<std::weak_ptr<HttpSession>> sessions_ GUARDED_BY(mu_);
  std::atomic<size_t> size_{0};  // sessions_.size(), readable without the lock
};

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_SESSION_REGISTRY_H_

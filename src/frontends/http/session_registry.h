// The set of open HTTP connections, so HttpServer::Stop can reach each one.
// Touched only when a connection opens or closes, never per request.
// Thread-safe; guarded by mu_.
#ifndef INFERD_FRONTENDS_HTTP_SESSION_REGISTRY_H_
#define INFERD_FRONTENDS_HTTP_SESSION_REGISTRY_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <list>
#include <memory>
#include <mutex>

namespace inferd::http {

class HttpSession;

class SessionRegistry {
 public:
  using Handle = std::list<std::weak_ptr<HttpSession>>::iterator;

  SessionRegistry() = default;
  SessionRegistry(const SessionRegistry&) = delete;
  SessionRegistry& operator=(const SessionRegistry&) = delete;

  // Adds a session; keep the handle to remove it.
  Handle Add(std::weak_ptr<HttpSession> session);
  // Removes a session (from its destructor).
  void Remove(Handle handle);
  // Calls `fn` for every session still alive, outside the lock.
  void ForEach(const std::function<void(HttpSession&)>& fn);
  // Waits until no session is left; false when `timeout` ran out first.
  bool WaitUntilEmpty(std::chrono::milliseconds timeout);

 private:
  std::mutex mu_;
  std::condition_variable empty_;                  // notified when sessions_ empties
  std::list<std::weak_ptr<HttpSession>> sessions_;  // guarded by mu_
};

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_SESSION_REGISTRY_H_

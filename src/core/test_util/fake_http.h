// Stand-ins for the cloud HTTP client's injected parts (core/cloud/http_client.h):
// a transport that answers from a script (or a function) and records what it
// was sent, and a sleeper that records its waits instead of sleeping.
#ifndef INFERD_CORE_TEST_UTIL_FAKE_HTTP_H_
#define INFERD_CORE_TEST_UTIL_FAKE_HTTP_H_

#include <chrono>
#include <deque>
#include <functional>
#include <utility>
#include <vector>

#include "core/cloud/http_client.h"
#include "inferd/base/mutex.h"

namespace inferd {

class ScriptedTransport final : public HttpTransport {
 public:
  using Responder = std::function<HttpResponse(const HttpRequest&)>;
  explicit ScriptedTransport(std::deque<HttpResponse> script) : script_(std::move(script)) {}
  explicit ScriptedTransport(Responder responder) : responder_(std::move(responder)) {}

  HttpResponse Perform(const HttpRequest& request) override {
    MutexLock lock(&mu_);
    sent_.push_back(request);
    if (responder_) return responder_(request);
    HttpResponse next = script_.front();
    script_.pop_front();
    return next;
  }
  std::vector<HttpRequest> sent() {
    MutexLock lock(&mu_);
    return sent_;
  }

 private:
  Mutex mu_;
  Responder responder_;
  std::deque<HttpResponse> script_ GUARDED_BY(mu_);
  std::vector<HttpRequest> sent_ GUARDED_BY(mu_);
};

class RecordingSleeper final : public Sleeper {
 public:
  void Sleep(std::chrono::nanoseconds duration) override {
    MutexLock lock(&mu_);
    waits_.push_back(duration);
  }
  std::vector<std::chrono::nanoseconds> waits() {
    MutexLock lock(&mu_);
    return waits_;
  }

 private:
  Mutex mu_;
  std::vector<std::chrono::nanoseconds> waits_ GUARDED_BY(mu_);
};

inline HttpResponse MakeHttpResponse(int status, std::string body = "") {
  HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  response.body_bytes = response.body.size();
  return response;
}

}  // namespace inferd

#endif  // INFERD_CORE_TEST_UTIL_FAKE_HTTP_H_

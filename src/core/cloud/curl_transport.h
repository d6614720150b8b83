// HttpTransport over libcurl (Debian's libcurl4-openssl-dev): HTTP/1.1 and
// HTTPS with OpenSSL and the system's CA store, keep-alive connections
// reused across requests (a pool of easy handles, one per request in
// flight), a connect timeout and a stall timeout (a transfer that moves no
// byte for `stall` is cut, whatever its size, rather than a total timeout
// that would cut large models on slow links). Chosen over the Boost.Beast +
// OpenSSL in the tree because curl brings certificate and host-name checks,
// proxies (HTTPS_PROXY, NO_PROXY), redirects and connection reuse that we
// would otherwise write and maintain by hand. Thread-safe.
#ifndef INFERD_CORE_CLOUD_CURL_TRANSPORT_H_
#define INFERD_CORE_CLOUD_CURL_TRANSPORT_H_

#include <chrono>
#include <vector>

#include "core/cloud/http_client.h"
#include "inferd/base/mutex.h"

namespace inferd {

struct HttpTimeouts {
  std::chrono::seconds connect{10};
  std::chrono::seconds stall{30};
};

class CurlTransport final : public HttpTransport {
 public:
  explicit CurlTransport(HttpTimeouts timeouts = {});
  ~CurlTransport() override;
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  HttpResponse Perform(const HttpRequest& request) override;

 private:
  void* TakeHandle();            // a CURL*, from the pool or new
  void ReturnHandle(void* handle);

  const HttpTimeouts timeouts_;
  Mutex mu_;
  std::vector<void*> idle_ GUARDED_BY(mu_);
};

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_CURL_TRANSPORT_H_

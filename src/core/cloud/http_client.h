// The HTTP client every object store talks through: one request at a time
// per caller, retried as object stores ask clients to retry. A store builds
// an HttpRequest (URL, headers, an optional byte range, where a success's
// body goes) and passes a signer, called before each attempt so that each
// attempt carries a fresh date and signature (S3 SigV4, Azure Shared Key, a
// GCS bearer token). Throttling (429, 503: S3's SlowDown), other 5xx, 408,
// connection failures, timeouts and truncated bodies are retried up to
// RetryPolicy::max_attempts with exponential backoff and jitter (honouring a
// Retry-After); anything else comes back at once for the store to turn into
// a CloudError. The wire is an HttpTransport (curl_transport.h in the server;
// a scripted fake in tests) and the waits go through a Sleeper, so the retry
// logic is tested in simulated time. Thread-safe.
#ifndef INFERD_CORE_CLOUD_HTTP_CLIENT_H_
#define INFERD_CORE_CLOUD_HTTP_CLIENT_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/cloud/checksum.h"
#include "inferd/base/status.h"

namespace inferd {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpResponse;

// Where a 2xx answer's body is written instead of HttpResponse::body.
struct BodyFile {
  std::string path;
  uint64_t offset = 0;    // where the first byte goes
  bool truncate = false;  // a whole object: start the file afresh
  // Which digest to compute over the bytes as they are written
  // (HttpResponse::body_checksum), so a download is checked without reading
  // the file again; asked once a 2xx answer's headers are in (S3 names the
  // object's checksum there). Null, or kNone: none.
  std::function<ChecksumKind(const HttpResponse&)> checksum;
};

struct HttpRequest {
  std::string method = "GET";
  std::string url;  // absolute, already percent-encoded
  HttpHeaders headers;
  std::string body;
  std::optional<BodyFile> body_file;
  // A success whose body is not this long is a truncated transfer (retried).
  std::optional<uint64_t> expected_body_bytes;
};

struct HttpResponse {
  int status = 0;      // 0: no HTTP answer; `error` says why
  std::string error;   // the transport's words when status is 0
  HttpHeaders headers;  // names lower-case
  std::string body;     // unless a 2xx went to the request's body_file
  uint64_t body_bytes = 0;  // bytes of body received (to the file or `body`)
  ContentChecksum body_checksum;  // with BodyFile::checksum, of a 2xx body
  int attempts = 0;         // how many tries this answer took

  // The header's value ("" when absent); `name` in lower case.
  std::string Header(std::string_view name) const;
  bool ok() const { return status >= 200 && status < 300; }
};

// Sends one request once. Implementations are thread-safe.
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // Always returns a response: status 0 and `error` when nothing came back.
  virtual HttpResponse Perform(const HttpRequest& request) = 0;
};

// How the client waits between attempts; tests record instead of sleeping.
class Sleeper {
 public:
  virtual ~Sleeper() = default;
  virtual void Sleep(std::chrono::nanoseconds duration) = 0;
  static Sleeper& Real();  // std::this_thread::sleep_for
};

struct RetryPolicy {
  int max_attempts = 6;  // the first try included
  std::chrono::milliseconds initial_backoff{100};
  std::chrono::milliseconds max_backoff{10000};
};

// Adds the cloud's headers to a request about to be sent (or refuses).
using RequestSigner = std::function<Status(HttpRequest*)>;

class HttpClient {
 public:
  // `random01` gives uniform numbers in [0, 1) for the jitter (a test's fixed
  // sequence); null: a thread-local generator.
  HttpClient(std::shared_ptr<HttpTransport> transport, RetryPolicy policy, Sleeper* sleeper,
             std::function<double()> random01 = nullptr);

  // Sends `request` (signed by `sign` before each attempt; null: unsigned),
  // retrying as above. Returns the last answer, success or not; an error only
  // when the signer refuses.
  StatusOr<HttpResponse> Send(HttpRequest request, const RequestSigner& sign) const;

  // Whether `response` is worth another attempt.
  static bool IsRetryable(const HttpResponse& response);
  // How long to wait before retry number `retry` (1 = the second attempt).
  std::chrono::nanoseconds Backoff(int retry, const HttpResponse& response) const;

  const RetryPolicy& policy() const { return policy_; }

 private:
  const std::shared_ptr<HttpTransport> transport_;
  const RetryPolicy policy_;
  Sleeper* const sleeper_;
  const std::function<double()> random01_;
};

}  // namespace inferd

#endif  // INFERD_CORE_CLOUD_HTTP_CLIENT_H_

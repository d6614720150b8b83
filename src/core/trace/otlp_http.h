// Sends an OTLP body to a collector: an HTTP/1.1 POST with a deadline on
// connecting, sending and reading the answer, on a connection kept open
// between batches (a connection per batch costs the kernel a handshake and
// a socket each time) unless the collector closes it; a send that fails on
// a kept connection is tried once more on a fresh one. Only plain http://
// (the collector usually runs beside the server, as an agent or a sidecar).
#ifndef INFERD_CORE_TRACE_OTLP_HTTP_H_
#define INFERD_CORE_TRACE_OTLP_HTTP_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "inferd/base/status.h"

namespace inferd {

// Where spans go: `http://host:port/path` or `host:port[/path]` (Triton's
// form); the path defaults to /v1/traces, the port to 4318.
struct OtlpEndpoint {
  std::string host;
  uint16_t port = 4318;
  std::string path = "/v1/traces";
};

// INVALID_ARG naming the url and what is wrong (https, no host, bad port).
StatusOr<OtlpEndpoint> ParseOtlpUrl(std::string_view url);

// What the exporter sends batches through; tests put their own behind it.
class SpanTransport {
 public:
  virtual ~SpanTransport() = default;
  // Sends one encoded batch; not OK when it was not accepted (no
  // connection, a timeout, an answer other than 2xx).
  virtual Status Send(std::string_view body) = 0;
};

class OtlpHttpTransport final : public SpanTransport {
 public:
  OtlpHttpTransport(OtlpEndpoint endpoint, uint32_t timeout_ms,
                    std::string content_type = "application/x-protobuf")
      : endpoint_(std::move(endpoint)),
        timeout_ms_(timeout_ms),
        content_type_(std::move(content_type)) {}
  ~OtlpHttpTransport() override;
  OtlpHttpTransport(const OtlpHttpTransport&) = delete;
  OtlpHttpTransport& operator=(const OtlpHttpTransport&) = delete;
  // Called from one thread at a time (the exporter's).
  Status Send(std::string_view body) override;

 private:
  // One POST on connection_ (connected first when there is none).
  Status Post(std::string_view body, std::chrono::steady_clock::time_point deadline);
  void Disconnect();

  const OtlpEndpoint endpoint_;
  const uint32_t timeout_ms_;
  const std::string content_type_;
  int connection_ = -1;  // kept open between sends; -1: none
};

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_OTLP_HTTP_H_

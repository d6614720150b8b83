// Sends an OTLP/JSON body to a collector: one HTTP/1.1 POST on a fresh
// connection, with a deadline on connecting, sending and reading the
// answer. Only plain http:// (the collector usually runs beside the server,
// as an agent or a sidecar).
#ifndef INFERD_CORE_TRACE_OTLP_HTTP_H_
#define INFERD_CORE_TRACE_OTLP_HTTP_H_

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
  Status Send(std::string_view body) override;

 private:
  const OtlpEndpoint endpoint_;
  const uint32_t timeout_ms_;
  const std::string content_type_;
};

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_OTLP_HTTP_H_

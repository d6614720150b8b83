// The status line and headers of an HTTP/1.x response, written by hand so a
// response can go out as one gather write of [head, JSON, output buffers...].
// Thread-safe (no shared state).
#ifndef INFERD_FRONTENDS_HTTP_RESPONSE_HEAD_H_
#define INFERD_FRONTENDS_HTTP_RESPONSE_HEAD_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "http/compression.h"

namespace inferd::http {

inline constexpr std::string_view kJsonContentType = "application/json";
inline constexpr std::string_view kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";
inline constexpr std::string_view kBinaryContentType = "application/octet-stream";
inline constexpr std::string_view kInferHeaderContentLength = "Inference-Header-Content-Length";
inline constexpr std::string_view kEventStreamContentType = "text/event-stream; charset=utf-8";

// How the client finds the end of the body.
enum class BodyFraming {
  kContentLength,  // Content-Length: the body is known before it is sent
  kChunked,        // Transfer-Encoding: chunked (HTTP/1.1): a stream of unknown length
  kUntilClose,     // neither: the body ends when the connection closes (an HTTP/1.0 stream)
};

struct ResponseHead {
  unsigned status = 200;
  unsigned http_version = 11;  // 10 or 11, as the request's
  bool keep_alive = true;
  std::string_view content_type = kJsonContentType;
  BodyFraming framing = BodyFraming::kContentLength;
  size_t content_length = 0;  // with kContentLength
  // Set when the body is JSON followed by binary outputs: the JSON's length.
  std::optional<size_t> inference_header_length;
  Encoding content_encoding = Encoding::kIdentity;
  // The traced request's span as a W3C traceparent, sent back as the
  // `traceresponse` header (Trace Context Level 2); empty: no header.
  std::string_view traceresponse;
  // More header lines, each ending "\r\n" (an error's WWW-Authenticate or
  // Retry-After); empty: none.
  std::string_view extra_headers;
  // Seconds after which a refused client may try again (`Retry-After`, sent
  // with 429 by admission control); 0: no header.
  uint64_t retry_after_s = 0;
};

// Replaces *out with the serialized head, ending in the blank line.
void SerializeResponseHead(const ResponseHead& head, std::string* out);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_RESPONSE_HEAD_H_

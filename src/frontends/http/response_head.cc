// Serializing HTTP/1.x response heads.
#include "http/response_head.h"

#include <boost/beast/http/status.hpp>

#include <charconv>

namespace inferd::http {
namespace {

void AppendNumber(size_t value, std::string* out) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
  out->append(digits, end);
}

}  // namespace

void SerializeResponseHead(const ResponseHead& head, std::string* out) {
  out->clear();
  out->append(head.http_version == 10 ? "HTTP/1.0 " : "HTTP/1.1 ");
  AppendNumber(head.status, out);
  out->push_back(' ');
  const auto reason = boost::beast::http::obsolete_reason(
      static_cast<boost::beast::http::status>(head.status));
  out->append(reason.data(), reason.size());
  out->append("\r\nContent-Type: ");
  out->append(head.content_type);
  if (head.framing == BodyFraming::kContentLength) {
    out->append("\r\nContent-Length: ");
    AppendNumber(head.content_length, out);
  } else if (head.framing == BodyFraming::kChunked) {
    out->append("\r\nTransfer-Encoding: chunked");
  }
  if (head.inference_header_length) {
    out->append("\r\n");
    out->append(kInferHeaderContentLength);
    out->append(": ");
    AppendNumber(*head.inference_header_length, out);
  }
  if (head.content_encoding != Encoding::kIdentity) {
    out->append("\r\nContent-Encoding: ");
    out->append(EncodingName(head.content_encoding));
  }
  if (!head.traceresponse.empty()) {
    out->append("\r\ntraceresponse: ");
    out->append(head.traceresponse);
  }
  if (!head.extra_headers.empty()) {
    out->append("\r\n");
    out->append(head.extra_headers.substr(0, head.extra_headers.size() - 2));
  }
  if (head.retry_after_s != 0) {
    out->append("\r\nRetry-After: ");
    AppendNumber(head.retry_after_s, out);
  }
  if (!head.keep_alive) {
    out->append("\r\nConnection: close");
  } else if (head.http_version == 10) {
    out->append("\r\nConnection: keep-alive");
  }
  out->append("\r\n\r\n");
}

}  // namespace inferd::http

// Serialized HTTP response heads.
#include "http/response_head.h"

#include <gtest/gtest.h>

namespace inferd::http {
namespace {

TEST(ResponseHeadTest, WritesStatusAndLengths) {
  ResponseHead head;
  head.content_length = 17;
  std::string out;
  SerializeResponseHead(head, &out);
  EXPECT_EQ(out, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n");
}

TEST(ResponseHeadTest, WritesRetryAfterForARefusal) {
  ResponseHead head;
  head.status = 429;
  head.content_length = 2;
  head.retry_after_s = 3;
  std::string out;
  SerializeResponseHead(head, &out);
  EXPECT_EQ(out,
            "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n"
            "Content-Length: 2\r\nRetry-After: 3\r\n\r\n");
}

TEST(ResponseHeadTest, WritesBinaryExtensionAndEncodingHeaders) {
  ResponseHead head;
  head.content_type = kBinaryContentType;
  head.content_length = 100;
  head.inference_header_length = 36;
  head.content_encoding = Encoding::kGzip;
  head.keep_alive = false;
  std::string out;
  SerializeResponseHead(head, &out);
  EXPECT_EQ(out,
            "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 100\r\n"
            "Inference-Header-Content-Length: 36\r\nContent-Encoding: gzip\r\n"
            "Connection: close\r\n\r\n");
}

TEST(ResponseHeadTest, WritesAnErrorsOwnHeaders) {
  ResponseHead head;
  head.status = 429;
  head.extra_headers = "Retry-After: 3\r\nX-Other: y\r\n";
  head.keep_alive = false;
  std::string out;
  SerializeResponseHead(head, &out);
  EXPECT_EQ(out,
            "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n"
            "Content-Length: 0\r\nRetry-After: 3\r\nX-Other: y\r\nConnection: close\r\n\r\n");
}

TEST(ResponseHeadTest, Http10KeepAliveIsExplicit) {
  ResponseHead head;
  head.status = 404;
  head.http_version = 10;
  std::string out;
  SerializeResponseHead(head, &out);
  EXPECT_EQ(out,
            "HTTP/1.0 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 0\r\n"
            "Connection: keep-alive\r\n\r\n");
}

TEST(ResponseHeadTest, AStreamIsChunkedOrEndsWithTheConnection) {
  ResponseHead head;
  head.content_type = kEventStreamContentType;
  head.framing = BodyFraming::kChunked;
  std::string out;
  SerializeResponseHead(head, &out);
  EXPECT_EQ(out,
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
            "Transfer-Encoding: chunked\r\n\r\n");
  head.framing = BodyFraming::kUntilClose;
  head.http_version = 10;
  head.keep_alive = false;
  SerializeResponseHead(head, &out);
  EXPECT_EQ(out,
            "HTTP/1.0 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\n"
            "Connection: close\r\n\r\n");
}

}  // namespace
}  // namespace inferd::http

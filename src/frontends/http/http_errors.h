// Errors of the HTTP frontend where they meet the wire: the one mapping of a
// Status to an HTTP status, the few failures whose HTTP status that mapping
// has no row for, and the {"error": "..."} body every failed request gets.
#ifndef INFERD_FRONTENDS_HTTP_HTTP_ERRORS_H_
#define INFERD_FRONTENDS_HTTP_HTTP_ERRORS_H_

#include <string>
#include <string_view>
#include <utility>

#include "inferd/base/status.h"

namespace inferd::http {

// The HTTP status Triton answers with for `code`: INTERNAL 500, NOT_FOUND 404,
// UNAVAILABLE 503, UNSUPPORTED 501, every other error 400; 200 for kOk. And
// inferd's RESOURCE_EXHAUSTED (admission control, which Triton lacks) 429.
unsigned HttpStatusFromCode(Status::Code code);

// A failure of a request's HTTP framing, which HTTP answers with a status of
// its own: 405 (method not allowed), 413 (body too large), 415 (unknown
// Content-Encoding). Only the router and the body decoding return it; every
// later step returns a plain Status, which converts to an HttpError answered
// by the code table. Not thread-safe.
class [[nodiscard]] HttpError {
 public:
  // OK, or `status` answered with HttpStatusFromCode.
  HttpError(Status status) : status_(std::move(status)) {}  // NOLINT: implicit by design
  // `status` answered with `http_status` instead of the table's.
  HttpError(unsigned http_status, Status status)
      : http_status_(http_status), status_(std::move(status)) {}
  // The same with header lines of its own, each ending "\r\n"
  // (WWW-Authenticate, Retry-After).
  HttpError(unsigned http_status, Status status, std::string headers)
      : http_status_(http_status), status_(std::move(status)), headers_(std::move(headers)) {}

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  const std::string& message() const { return status_.message(); }
  // The status line's code: 200 when OK.
  unsigned http_status() const {
    return http_status_ != 0 && !ok() ? http_status_ : HttpStatusFromCode(status_.code());
  }
  const std::string& headers() const { return headers_; }

 private:
  unsigned http_status_ = 0;  // 0: the code table's
  Status status_;
  std::string headers_;
};

// {"error":"<message>"}, the message escaped as a JSON string.
std::string ErrorJson(std::string_view message);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_HTTP_ERRORS_H_

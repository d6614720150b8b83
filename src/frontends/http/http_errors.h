// Errors of the HTTP frontend: a Status that carries the HTTP status and the
// message a client sees, the INFERD_Error_Code -> HTTP status table, and the
// {"error": "..."} body every failed endpoint answers with.
#ifndef INFERD_FRONTENDS_HTTP_HTTP_ERRORS_H_
#define INFERD_FRONTENDS_HTTP_HTTP_ERRORS_H_

#include <memory>
#include <string>
#include <string_view>

#include "inferd/server.h"

namespace inferd::http {

// The HTTP status Triton answers with for an error of `code`: INTERNAL 500,
// NOT_FOUND 404, UNAVAILABLE 503, UNSUPPORTED 501, everything else 400.
unsigned HttpStatusFromErrorCode(INFERD_Error_Code code);

// The result of a fallible step of the frontend: OK, or the HTTP status and the
// message to answer with. One pointer, null when OK. Not thread-safe.
class [[nodiscard]] Status {
 public:
  // OK.
  Status() = default;
  // An error whose HTTP status comes from `code` (see HttpStatusFromErrorCode).
  Status(INFERD_Error_Code code, std::string message);
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status Ok() { return Status(); }
  static Status InvalidArg(std::string message) {
    return Status(INFERD_ERROR_INVALID_ARG, std::move(message));
  }
  static Status NotFound(std::string message) {
    return Status(INFERD_ERROR_NOT_FOUND, std::move(message));
  }
  static Status Unsupported(std::string message) {
    return Status(INFERD_ERROR_UNSUPPORTED, std::move(message));
  }
  static Status Internal(std::string message) {
    return Status(INFERD_ERROR_INTERNAL, std::move(message));
  }
  // An error with an HTTP status outside the code table (405, 413, ...).
  static Status WithHttpStatus(unsigned http_status, std::string message);
  // Converts and frees a server API error; OK when `error` is null.
  static Status FromServerError(INFERD_Error* error);

  bool ok() const { return rep_ == nullptr; }
  // 200 when OK.
  unsigned http_status() const { return rep_ ? rep_->http_status : 200; }
  // Empty when OK.
  const std::string& message() const;

 private:
  struct Rep {
    unsigned http_status;
    std::string message;
  };
  std::unique_ptr<Rep> rep_;
};

// Frees `error` if there is one: for cleanup calls whose failure changes nothing.
void DiscardServerError(INFERD_Error* error);

// {"error":"<message>"}, the message escaped as a JSON string.
std::string ErrorJson(std::string_view message);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_HTTP_ERRORS_H_

// Status and StatusOr: the result of every fallible call inside inferd.
//
// A Status is one pointer, null when OK, so success costs nothing. Its codes map
// one to one onto INFERD_Error_Code (server.h) and so onto HTTP and gRPC
// statuses. Exceptions are not used inside the core and never cross an ABI.
// Header-only: the core and the frontends share it, so an error has one type
// from where it arises to where a frontend maps it to its protocol.
#ifndef INFERD_BASE_STATUS_H_
#define INFERD_BASE_STATUS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace inferd {

class [[nodiscard]] Status {
 public:
  // Same values as INFERD_Error_Code, plus kOk.
  enum class Code : int {
    kUnknown = 0,
    kInternal,
    kNotFound,
    kInvalidArg,
    kUnavailable,
    kUnsupported,
    kAlreadyExists,
    kCancelled,
    // Refused by admission control (too much queued or in flight, or the
    // expected queue time too long): HTTP 429, gRPC RESOURCE_EXHAUSTED.
    kResourceExhausted,
    kOk = 100,
  };

  Status() = default;
  Status(Code code, std::string message, uint64_t retry_after_ms = 0)
      : rep_(code == Code::kOk ? nullptr : new Rep{code, std::move(message), retry_after_ms}) {}
  Status(const Status& other) : rep_(other.rep_ ? new Rep(*other.rep_) : nullptr) {}
  Status& operator=(const Status& other) {
    if (this != &other) rep_.reset(other.rep_ ? new Rep(*other.rep_) : nullptr);
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status Ok() { return Status(); }
  static Status Unknown(std::string msg) { return Status(Code::kUnknown, std::move(msg)); }
  static Status Internal(std::string msg) { return Status(Code::kInternal, std::move(msg)); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status InvalidArg(std::string msg) { return Status(Code::kInvalidArg, std::move(msg)); }
  static Status Unavailable(std::string msg) { return Status(Code::kUnavailable, std::move(msg)); }
  static Status Unsupported(std::string msg) { return Status(Code::kUnsupported, std::move(msg)); }
  static Status AlreadyExists(std::string msg) {
    return Status(Code::kAlreadyExists, std::move(msg));
  }
  static Status Cancelled(std::string msg) { return Status(Code::kCancelled, std::move(msg)); }
  // Refused for now; the client may try again after `retry_after_ms`.
  static Status ResourceExhausted(std::string msg, uint64_t retry_after_ms) {
    return Status(Code::kResourceExhausted, std::move(msg), retry_after_ms);
  }

  bool ok() const { return rep_ == nullptr; }
  Code code() const { return rep_ ? rep_->code : Code::kOk; }
  // Empty when OK.
  const std::string& message() const {
    static const std::string kEmpty;
    return rep_ ? rep_->message : kEmpty;
  }
  // When the client may try again (HTTP Retry-After); 0: no advice.
  uint64_t retry_after_ms() const { return rep_ ? rep_->retry_after_ms : 0; }
  // "NOT_FOUND", "INVALID_ARG", ...; "OK" when OK.
  std::string_view CodeName() const {
    switch (code()) {
      case Code::kUnknown: return "UNKNOWN";
      case Code::kInternal: return "INTERNAL";
      case Code::kNotFound: return "NOT_FOUND";
      case Code::kInvalidArg: return "INVALID_ARG";
      case Code::kUnavailable: return "UNAVAILABLE";
      case Code::kUnsupported: return "UNSUPPORTED";
      case Code::kAlreadyExists: return "ALREADY_EXISTS";
      case Code::kCancelled: return "CANCELLED";
      case Code::kResourceExhausted: return "RESOURCE_EXHAUSTED";
      case Code::kOk: return "OK";
    }
    return "UNKNOWN";
  }
  // The same status with `prefix` put before the message ("model 'x': ...").
  Status WithPrefix(std::string_view prefix) const {
    if (ok()) return Status();
    return Status(rep_->code, std::string(prefix) + rep_->message, rep_->retry_after_ms);
  }
  std::string ToString() const {
    if (ok()) return "OK";
    return std::string(CodeName()) + ": " + rep_->message;
  }

 private:
  struct Rep {
    Code code;
    std::string message;
    uint64_t retry_after_ms = 0;
  };
  std::unique_ptr<Rep> rep_;
};

// A value or the Status saying why there is none.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  // An error. An OK status carries no value, so it becomes an INTERNAL error
  // rather than a StatusOr that is ok() with nothing in it.
  StatusOr(Status status)  // NOLINT: implicit by design
      : status_(status.ok() ? Status::Internal("StatusOr made from an OK status, without a value")
                            : std::move(status)) {}
  StatusOr(T value) : value_(std::move(value)) {}          // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace inferd

#define INFERD_CONCAT_INNER(a, b) a##b
#define INFERD_CONCAT(a, b) INFERD_CONCAT_INNER(a, b)

// Returns from the calling function when `expr` gives a non-OK Status.
#define RETURN_IF_ERROR(expr)                         \
  do {                                                \
    ::inferd::Status inferd_status_ = (expr);         \
    if (!inferd_status_.ok()) return inferd_status_;  \
  } while (0)

// `lhs = value of expr`, or returns its Status from the calling function.
#define ASSIGN_OR_RETURN(lhs, expr)                                         \
  auto INFERD_CONCAT(inferd_statusor_, __LINE__) = (expr);                  \
  if (!INFERD_CONCAT(inferd_statusor_, __LINE__).ok())                      \
    return INFERD_CONCAT(inferd_statusor_, __LINE__).status();              \
  lhs = std::move(INFERD_CONCAT(inferd_statusor_, __LINE__)).value()

#endif  // INFERD_BASE_STATUS_H_

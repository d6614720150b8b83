#include "core/common/status.h"

namespace inferd {

Status::Status(Code code, std::string message)
    : rep_(code == Code::kOk ? nullptr : new Rep{code, std::move(message)}) {}

Status::Status(const Status& other) : rep_(other.rep_ ? new Rep(*other.rep_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) rep_.reset(other.rep_ ? new Rep(*other.rep_) : nullptr);
  return *this;
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return rep_ ? rep_->message : kEmpty;
}

std::string_view Status::CodeName() const {
  switch (code()) {
    case Code::kUnknown: return "UNKNOWN";
    case Code::kInternal: return "INTERNAL";
    case Code::kNotFound: return "NOT_FOUND";
    case Code::kInvalidArg: return "INVALID_ARG";
    case Code::kUnavailable: return "UNAVAILABLE";
    case Code::kUnsupported: return "UNSUPPORTED";
    case Code::kAlreadyExists: return "ALREADY_EXISTS";
    case Code::kCancelled: return "CANCELLED";
    case Code::kOk: return "OK";
  }
  return "UNKNOWN";
}

Status Status::WithPrefix(std::string_view prefix) const {
  if (ok()) return Status();
  return Status(rep_->code, std::string(prefix) + rep_->message);
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  return std::string(CodeName()) + ": " + rep_->message;
}

}  // namespace inferd

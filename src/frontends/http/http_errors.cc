// Error-code to HTTP-status mapping and the JSON error body.
#include "http/http_errors.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace inferd::http {

unsigned HttpStatusFromErrorCode(INFERD_Error_Code code) {
  switch (code) {
    case INFERD_ERROR_INTERNAL:
      return 500;
    case INFERD_ERROR_NOT_FOUND:
      return 404;
    case INFERD_ERROR_UNAVAILABLE:
      return 503;
    case INFERD_ERROR_UNSUPPORTED:
      return 501;
    case INFERD_ERROR_UNKNOWN:
    case INFERD_ERROR_INVALID_ARG:
    case INFERD_ERROR_ALREADY_EXISTS:
    case INFERD_ERROR_CANCELLED:
      return 400;
  }
  return 400;
}

Status::Status(INFERD_Error_Code code, std::string message)
    : rep_(std::make_unique<Rep>(Rep{HttpStatusFromErrorCode(code), std::move(message)})) {}

Status::Status(const Status& other)
    : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
  return *this;
}

Status Status::WithHttpStatus(unsigned http_status, std::string message) {
  Status status;
  status.rep_ = std::make_unique<Rep>(Rep{http_status, std::move(message)});
  return status;
}

Status Status::FromServerError(INFERD_Error* error) {
  if (error == nullptr) return Status();
  const char* message = INFERD_ErrorMessage(error);
  Status status(INFERD_ErrorCode(error), message ? message : "");
  INFERD_ErrorDelete(error);
  return status;
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return rep_ ? rep_->message : kEmpty;
}

void DiscardServerError(INFERD_Error* error) {
  if (error != nullptr) INFERD_ErrorDelete(error);
}

std::string ErrorJson(std::string_view message) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  writer.Key("error");
  writer.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace inferd::http

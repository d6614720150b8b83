// Status-code to HTTP-status mapping and the JSON error body.
#include "http/http_errors.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace inferd::http {

unsigned HttpStatusFromCode(Status::Code code) {
  switch (code) {
    case Status::Code::kOk:
      return 200;
    case Status::Code::kInternal:
      return 500;
    case Status::Code::kNotFound:
      return 404;
    case Status::Code::kUnavailable:
      return 503;
    case Status::Code::kUnsupported:
      return 501;
    case Status::Code::kResourceExhausted:
      return 429;
    case Status::Code::kUnknown:
    case Status::Code::kInvalidArg:
    case Status::Code::kAlreadyExists:
    case Status::Code::kCancelled:
      return 400;
  }
  return 400;
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

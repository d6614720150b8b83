// OpenAI's error object.
#include "http/openai/openai_error.h"

#include <string>
#include <utility>

namespace inferd::http::openai {
namespace {

void StringOrNull(const std::string& value, JsonWriter* writer) {
  if (value.empty()) {
    writer->Null();
  } else {
    writer->String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
  }
}

}  // namespace

ApiError BadRequest(std::string param, std::string message, std::string code) {
  return ApiError{400, std::move(message), "invalid_request_error", std::move(param),
                  std::move(code), {}};
}

ApiError WrongType(const std::string& param, std::string_view expected) {
  return BadRequest(param, "Invalid type for '" + param + "': expected " + std::string(expected) +
                               ".",
                    "invalid_type");
}

ApiError ModelNotFound(const std::string& model, const std::string& why) {
  return ApiError{404, "The model '" + model + "' does not exist or is not ready: " + why,
                  "invalid_request_error", "model", "model_not_found", {}};
}

ApiError FromStatus(const Status& status, unsigned http_status) {
  ApiError error{http_status, status.message(),
                 http_status >= 500 ? "server_error" : "invalid_request_error", "", "", {}};
  if (http_status == 429) {
    // OpenAI's own rate-limit answer: its client raises RateLimitError.
    error.type = "requests";
    error.code = "rate_limit_exceeded";
  }
  if (const uint64_t ms = status.retry_after_ms(); ms != 0) {
    // Whole seconds rounded up for HTTP, and the milliseconds, which the
    // openai client prefers when it waits to retry.
    error.headers = "Retry-After: " + std::to_string((ms + 999) / 1000) +
                    "\r\nretry-after-ms: " + std::to_string(ms) + "\r\n";
  }
  return error;
}

void RenderError(const ApiError& error, JsonWriter* writer) {
  writer->StartObject();
  writer->Key("error");
  writer->StartObject();
  writer->Key("message");
  writer->String(error.message.data(), static_cast<rapidjson::SizeType>(error.message.size()));
  writer->Key("type");
  writer->String(error.type.data(), static_cast<rapidjson::SizeType>(error.type.size()));
  writer->Key("param");
  StringOrNull(error.param, writer);
  writer->Key("code");
  StringOrNull(error.code, writer);
  writer->EndObject();
  writer->EndObject();
}

}  // namespace inferd::http::openai

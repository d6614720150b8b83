// An error of the OpenAI-compatible API as OpenAI answers it: an HTTP status
// and {"error": {"message", "type", "param", "code"}}. Not thread-safe.
#ifndef INFERD_FRONTENDS_HTTP_OPENAI_OPENAI_ERROR_H_
#define INFERD_FRONTENDS_HTTP_OPENAI_OPENAI_ERROR_H_

#include <string>
#include <string_view>

#include "http/tensor_json.h"
#include "inferd/base/status.h"

namespace inferd::http::openai {

struct ApiError {
  unsigned http_status = 0;  // 0: no error
  std::string message;
  std::string type = "invalid_request_error";
  std::string param;  // the request field at fault; empty: null
  std::string code;   // OpenAI's machine-readable code; empty: null
  std::string headers;  // header lines of the answer, each ending "\r\n"; empty: none

  bool ok() const { return http_status == 0; }
};

// 400 naming `param`.
ApiError BadRequest(std::string param, std::string message, std::string code = {});
// 400: `param` holds a value of another JSON type than `expected`.
ApiError WrongType(const std::string& param, std::string_view expected);
// 404 for a model the server does not serve (code "model_not_found").
ApiError ModelNotFound(const std::string& model, const std::string& why);
// A server Status as OpenAI's error: its HTTP status by Triton's table, type
// "server_error" for 5xx, "invalid_request_error" otherwise; a 429 is OpenAI's
// rate-limit error (type "requests", code "rate_limit_exceeded"), and retry
// advice in the status becomes Retry-After and retry-after-ms headers.
ApiError FromStatus(const Status& status, unsigned http_status);

// Writes {"error": {...}}.
void RenderError(const ApiError& error, JsonWriter* writer);

}  // namespace inferd::http::openai

#endif  // INFERD_FRONTENDS_HTTP_OPENAI_OPENAI_ERROR_H_

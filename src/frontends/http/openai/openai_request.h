// Parses the body of an OpenAI API request (POST /v1/completions,
// /v1/chat/completions, /v1/embeddings) into what the frontend needs to
// serve it. Fields OpenAI defines are checked for their JSON type (a wrong
// one is a 400 naming the field); null counts as absent; unknown fields are
// ignored, as OpenAI ignores them. Pure; thread-safe.
#ifndef INFERD_FRONTENDS_HTTP_OPENAI_OPENAI_REQUEST_H_
#define INFERD_FRONTENDS_HTTP_OPENAI_OPENAI_REQUEST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/openai/openai_error.h"

namespace inferd::http::openai {

enum class ApiKind { kCompletion, kChat, kEmbedding };

struct ChatMessage {
  std::string role;
  std::string content;  // text parts joined with "\n"
};

// The sampling fields, passed on to the model as they came (and enforced by
// the frontend where it can: stop strings, max_tokens).
struct Sampling {
  std::optional<int64_t> max_tokens;  // max_tokens, or max_completion_tokens
  std::optional<double> temperature;
  std::optional<double> top_p;
  std::optional<double> presence_penalty;
  std::optional<double> frequency_penalty;
  std::optional<int64_t> seed;
  std::vector<std::string> stop;
  std::optional<int64_t> logprobs;  // completions: an integer; chat: top_logprobs when logprobs
};

struct ApiRequest {
  ApiKind kind = ApiKind::kCompletion;
  std::string model;
  std::vector<std::string> prompts;   // completions: each prompt; embeddings: each input
  std::vector<ChatMessage> messages;  // chat
  Sampling sampling;
  int64_t n = 1;
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
  bool echo = false;           // completions: the prompt comes back before the text
  bool base64 = false;         // embeddings: encoding_format "base64" (else "float")
  std::string user;
};

// The most choices one request may ask for (n) — OpenAI's own bound.
inline constexpr int64_t kMaxChoices = 128;

// Parses `body` (JSON) as a request of `kind`.
ApiError ParseApiRequest(ApiKind kind, std::string_view body, ApiRequest* out);

}  // namespace inferd::http::openai

#endif  // INFERD_FRONTENDS_HTTP_OPENAI_OPENAI_REQUEST_H_

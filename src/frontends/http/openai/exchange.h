// One OpenAI API request while it is served: its choices (each prompt times
// n, generated one after another, each one server request), what each has
// generated, its token counts and finish reason, and the frontend's own
// enforcement of stop strings and (for models that take no sampling
// parameters) max_tokens. Reads each server response of the convention
// (model_convention.h). Times are passed in, so it is tested in simulated
// time. Not thread-safe: the session's strand owns it.
#ifndef INFERD_FRONTENDS_HTTP_OPENAI_EXCHANGE_H_
#define INFERD_FRONTENDS_HTTP_OPENAI_EXCHANGE_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/openai/model_convention.h"
#include "http/openai/openai_request.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::http::openai {

using Clock = std::chrono::steady_clock;

// What one server response adds to a choice.
struct ResponseContent {
  std::string text;                    // text_output's elements, joined
  std::string finish_reason;           // finish_reason; empty when absent
  std::optional<int64_t> input_tokens;   // num_input_tokens
  std::optional<int64_t> output_tokens;  // num_output_tokens
  std::vector<float> embedding;        // embedding (FP32)
  bool has_embedding = false;
};

// Reads the convention's outputs of `response`; the response's error, if any.
Status ReadResponseContent(INFERD_InferenceResponse* response, ResponseContent* content);

// Whitespace-separated words: the token estimate for models that report none.
int64_t EstimateTokens(std::string_view text);

struct Choice {
  std::string text;           // what the client has been (or will be) sent
  int64_t output_tokens = 0;  // reported by the model, else estimated at the end
  bool tokens_reported = false;
  std::string finish_reason;  // empty until the choice ends
  bool cut = false;           // the frontend ended it (stop string, max_tokens)
  std::vector<float> embedding;

  bool has_embedding() const { return !embedding.empty(); }
};

class Exchange {
 public:
  // `prompts`: one per prompt of the request (a chat's: its templated one).
  Exchange(ApiRequest request, ModelConvention convention, std::vector<std::string> prompts,
           Clock::time_point start);

  const ApiRequest& request() const { return request_; }
  const ModelConvention& convention() const { return convention_; }
  const std::string& id() const { return id_; }
  int64_t created() const { return created_; }

  size_t choice_count() const { return choices_.size(); }
  size_t current() const { return current_; }
  const Choice& choice(size_t index) const { return choices_[index]; }
  // The prompt of the current choice (prompt index = choice / n).
  const std::string& prompt() const { return prompts_[current_ / request_.n]; }
  // The generate body of the current choice.
  std::string CurrentBody() const;

  // Adds a response of the current choice; `*delta` is the text for the
  // client. True when the frontend ended the choice (a stop string, or
  // max_tokens for a model that takes no sampling parameters): cancel it.
  bool Add(ResponseContent content, Clock::time_point now, std::string* delta);
  // The current choice's FINAL arrived: its finish reason is settled.
  void EndChoice();
  // Moves to the next choice; false after the last.
  bool Next();

  int64_t prompt_tokens() const;
  int64_t completion_tokens() const;
  std::optional<Clock::time_point> first_token() const { return first_token_; }
  Clock::time_point start() const { return start_; }

 private:
  // Cuts the current choice's text at the first stop string at or after
  // `from`; true when one was found.
  bool CutAtStop(size_t from);

  ApiRequest request_;
  ModelConvention convention_;
  std::vector<std::string> prompts_;
  std::vector<std::optional<int64_t>> prompt_tokens_reported_;  // per prompt
  std::vector<Choice> choices_;
  size_t current_ = 0;
  std::string model_finish_reason_;  // the current choice's, as the model gave it
  std::string id_;
  int64_t created_ = 0;
  Clock::time_point start_;
  std::optional<Clock::time_point> first_token_;
};

}  // namespace inferd::http::openai

#endif  // INFERD_FRONTENDS_HTTP_OPENAI_EXCHANGE_H_

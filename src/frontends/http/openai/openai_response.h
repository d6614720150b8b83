// Renders the OpenAI API's answers from an Exchange: a completion, a chat
// completion, their stream chunks (chat.completion.chunk /
// text_completion), the usage chunk, embeddings, and the model list. Pure;
// not thread-safe (one writer per answer).
#ifndef INFERD_FRONTENDS_HTTP_OPENAI_OPENAI_RESPONSE_H_
#define INFERD_FRONTENDS_HTTP_OPENAI_OPENAI_RESPONSE_H_

#include <string>
#include <string_view>
#include <vector>

#include "http/openai/exchange.h"
#include "http/tensor_json.h"

namespace inferd::http::openai {

// The whole answer once every choice has ended (stream false).
void RenderAnswer(const Exchange& exchange, JsonWriter* writer);

// One stream chunk of the current choice: `delta` text, and `finish_reason`
// when not empty (then the delta is usually empty). A chat's first chunk of
// each choice carries the assistant role (`first`).
void RenderChunk(const Exchange& exchange, std::string_view delta, bool first,
                 std::string_view finish_reason, JsonWriter* writer);

// The last chunk when stream_options.include_usage: no choices, the usage.
void RenderUsageChunk(const Exchange& exchange, JsonWriter* writer);

// {"object": "list", "data": [{"id", "object": "model", "created", "owned_by"}]}.
void RenderModelList(const std::vector<std::string>& models, JsonWriter* writer);
// One model object: {"id", "object": "model", "created", "owned_by"}.
void RenderModel(const std::string& model, JsonWriter* writer);

}  // namespace inferd::http::openai

#endif  // INFERD_FRONTENDS_HTTP_OPENAI_OPENAI_RESPONSE_H_

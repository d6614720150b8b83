// Turns chat messages into one prompt, as the model's chat template says.
// Not Jinja: a model names one of a few built-in templates, or gives a
// pattern per message ("{role}" and "{content}" replaced) with an optional
// prefix and generation prompt (docs/openai-api.md "Chat templates"). Pure;
// thread-safe.
#ifndef INFERD_FRONTENDS_HTTP_OPENAI_CHAT_TEMPLATE_H_
#define INFERD_FRONTENDS_HTTP_OPENAI_CHAT_TEMPLATE_H_

#include <string>
#include <vector>

#include "http/openai/openai_request.h"
#include "inferd/base/status.h"

namespace inferd::http::openai {

// The template when the model names none.
inline constexpr const char* kDefaultChatTemplate = "chatml";

struct ChatTemplate {
  // A built-in name (chatml, llama3, llama2, gemma, plain) or a pattern with
  // "{content}" (and usually "{role}") applied to each message.
  std::string name_or_pattern = kDefaultChatTemplate;
  std::string prefix;             // patterns only: before the first message
  std::string generation_prompt;  // patterns only: after the last message
};

// The prompt for `messages`, ending where the assistant's answer begins.
// INVALID_ARG when the template is neither a built-in name nor a pattern.
Status ApplyChatTemplate(const ChatTemplate& chat_template,
                         const std::vector<ChatMessage>& messages, std::string* prompt);

}  // namespace inferd::http::openai

#endif  // INFERD_FRONTENDS_HTTP_OPENAI_CHAT_TEMPLATE_H_

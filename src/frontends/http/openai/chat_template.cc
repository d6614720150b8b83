// The built-in chat templates and the pattern form.
#include "http/openai/chat_template.h"

#include <string_view>

namespace inferd::http::openai {
namespace {

// "{role}" and "{content}" of `pattern` replaced by the message's.
void AppendPattern(std::string_view pattern, const ChatMessage& message, std::string* out) {
  while (!pattern.empty()) {
    const size_t brace = pattern.find('{');
    out->append(pattern.substr(0, brace));
    if (brace == std::string_view::npos) return;
    pattern.remove_prefix(brace);
    if (pattern.starts_with("{role}")) {
      out->append(message.role);
      pattern.remove_prefix(6);
    } else if (pattern.starts_with("{content}")) {
      out->append(message.content);
      pattern.remove_prefix(9);
    } else {
      out->push_back('{');
      pattern.remove_prefix(1);
    }
  }
}

// One pattern per message between a prefix and a generation prompt.
struct Simple {
  std::string_view name, prefix, pattern, generation_prompt;
};

constexpr Simple kSimple[] = {
    {"chatml", "", "<|im_start|>{role}\n{content}<|im_end|>\n", "<|im_start|>assistant\n"},
    {"llama3", "<|begin_of_text|>",
     "<|start_header_id|>{role}<|end_header_id|>\n\n{content}<|eot_id|>",
     "<|start_header_id|>assistant<|end_header_id|>\n\n"},
    {"plain", "", "{role}: {content}\n", "assistant:"},
};

// Llama 2's: the system message folded into the first user turn.
void ApplyLlama2(const std::vector<ChatMessage>& messages, std::string* out) {
  std::string system;
  bool first_user = true;
  for (const ChatMessage& message : messages) {
    if (message.role == "system" || message.role == "developer") {
      system = message.content;
    } else if (message.role == "assistant") {
      out->append(" ").append(message.content).append(" </s>");
    } else {
      out->append("<s>[INST] ");
      if (first_user && !system.empty()) out->append("<<SYS>>\n" + system + "\n<</SYS>>\n\n");
      first_user = false;
      out->append(message.content).append(" [/INST]");
    }
  }
}

// Gemma's: two roles, user and model; a system message opens the first turn.
void ApplyGemma(const std::vector<ChatMessage>& messages, std::string* out) {
  out->append("<bos>");
  std::string pending_system;
  for (const ChatMessage& message : messages) {
    if (message.role == "system" || message.role == "developer") {
      pending_system = message.content + "\n\n";
      continue;
    }
    const bool model = message.role == "assistant";
    out->append("<start_of_turn>").append(model ? "model" : "user").append("\n");
    if (!model) out->append(pending_system);
    pending_system.clear();
    out->append(message.content).append("<end_of_turn>\n");
  }
  out->append("<start_of_turn>model\n");
}

}  // namespace

Status ApplyChatTemplate(const ChatTemplate& chat_template,
                         const std::vector<ChatMessage>& messages, std::string* prompt) {
  prompt->clear();
  const std::string& name = chat_template.name_or_pattern;
  for (const Simple& simple : kSimple) {
    if (name != simple.name) continue;
    prompt->append(simple.prefix);
    for (const ChatMessage& message : messages) AppendPattern(simple.pattern, message, prompt);
    prompt->append(simple.generation_prompt);
    return Status::Ok();
  }
  if (name == "llama2") {
    ApplyLlama2(messages, prompt);
    return Status::Ok();
  }
  if (name == "gemma") {
    ApplyGemma(messages, prompt);
    return Status::Ok();
  }
  if (name.find("{content}") == std::string::npos) {
    return Status::InvalidArg("chat template '" + name +
                              "' is neither a built-in one (chatml, llama3, llama2, gemma, "
                              "plain) nor a pattern with {content}");
  }
  prompt->append(chat_template.prefix);
  for (const ChatMessage& message : messages) AppendPattern(name, message, prompt);
  prompt->append(chat_template.generation_prompt);
  return Status::Ok();
}

}  // namespace inferd::http::openai

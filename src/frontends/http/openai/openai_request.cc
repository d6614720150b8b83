// Reading OpenAI's request bodies.
#include "http/openai/openai_request.h"

#include <rapidjson/document.h>

#include <utility>

namespace inferd::http::openai {
namespace {

using Json = rapidjson::Value;

std::string Text(const Json& value) { return std::string(value.GetString(), value.GetStringLength()); }

// The fields of one JSON object, each read with its type checked.
class Fields {
 public:
  Fields(const Json& object, std::string prefix) : object_(object), prefix_(std::move(prefix)) {}

  // The field's value; null when absent or JSON null.
  const Json* Find(const char* name) const {
    const auto it = object_.FindMember(name);
    if (it == object_.MemberEnd() || it->value.IsNull()) return nullptr;
    return &it->value;
  }
  std::string Name(const char* name) const { return prefix_ + name; }

  ApiError String(const char* name, std::string* out) const {
    const Json* value = Find(name);
    if (value == nullptr) return {};
    if (!value->IsString()) return WrongType(Name(name), "a string");
    *out = Text(*value);
    return {};
  }
  ApiError Number(const char* name, std::optional<double>* out) const {
    const Json* value = Find(name);
    if (value == nullptr) return {};
    if (!value->IsNumber()) return WrongType(Name(name), "a number");
    *out = value->GetDouble();
    return {};
  }
  ApiError Integer(const char* name, std::optional<int64_t>* out) const {
    const Json* value = Find(name);
    if (value == nullptr) return {};
    if (!value->IsInt64()) return WrongType(Name(name), "an integer");
    *out = value->GetInt64();
    return {};
  }
  ApiError Bool(const char* name, bool* out) const {
    const Json* value = Find(name);
    if (value == nullptr) return {};
    if (!value->IsBool()) return WrongType(Name(name), "a boolean");
    *out = value->GetBool();
    return {};
  }

 private:
  const Json& object_;
  std::string prefix_;
};

#define OPENAI_RETURN_IF_ERROR(expr)     \
  do {                                   \
    if (ApiError e_ = (expr); !e_.ok()) { \
      return e_;                         \
    }                                    \
  } while (false)

ApiError Missing(const char* name) {
  return BadRequest(name, std::string("you must provide a '") + name + "' parameter",
                    "missing_required_parameter");
}

// A string, or an array of strings: stop, prompt, input.
ApiError StringOrList(const Fields& fields, const char* name, std::vector<std::string>* out) {
  const Json* value = fields.Find(name);
  if (value == nullptr) return {};
  if (value->IsString()) {
    out->push_back(Text(*value));
    return {};
  }
  if (!value->IsArray()) return WrongType(name, "a string or an array of strings");
  for (const Json& item : value->GetArray()) {
    if (!item.IsString()) {
      return BadRequest(name, std::string("'") + name +
                                  "' must hold strings (token ids are not supported)",
                        "invalid_type");
    }
    out->push_back(Text(item));
  }
  return {};
}

ApiError ParseMaxTokens(const Fields& fields, Sampling* sampling) {
  OPENAI_RETURN_IF_ERROR(fields.Integer("max_tokens", &sampling->max_tokens));
  std::optional<int64_t> completion;
  OPENAI_RETURN_IF_ERROR(fields.Integer("max_completion_tokens", &completion));
  if (completion) sampling->max_tokens = completion;
  if (sampling->max_tokens && *sampling->max_tokens < 1) {
    return BadRequest(completion ? "max_completion_tokens" : "max_tokens",
                      "the most tokens to generate must be at least 1", "invalid_value");
  }
  return {};
}

ApiError ParseSampling(const Fields& fields, Sampling* sampling) {
  OPENAI_RETURN_IF_ERROR(ParseMaxTokens(fields, sampling));
  OPENAI_RETURN_IF_ERROR(fields.Number("temperature", &sampling->temperature));
  if (sampling->temperature && (*sampling->temperature < 0 || *sampling->temperature > 2)) {
    return BadRequest("temperature", "'temperature' must be between 0 and 2", "invalid_value");
  }
  OPENAI_RETURN_IF_ERROR(fields.Number("top_p", &sampling->top_p));
  if (sampling->top_p && (*sampling->top_p < 0 || *sampling->top_p > 1)) {
    return BadRequest("top_p", "'top_p' must be between 0 and 1", "invalid_value");
  }
  OPENAI_RETURN_IF_ERROR(fields.Number("presence_penalty", &sampling->presence_penalty));
  OPENAI_RETURN_IF_ERROR(fields.Number("frequency_penalty", &sampling->frequency_penalty));
  OPENAI_RETURN_IF_ERROR(fields.Integer("seed", &sampling->seed));
  OPENAI_RETURN_IF_ERROR(StringOrList(fields, "stop", &sampling->stop));
  for (const std::string& stop : sampling->stop) {
    if (stop.empty()) return BadRequest("stop", "a stop string must not be empty", "invalid_value");
  }
  return {};
}

// logprobs: an integer on completions; a boolean with top_logprobs on chat.
ApiError ParseLogprobs(ApiKind kind, const Fields& fields, Sampling* sampling) {
  if (kind == ApiKind::kCompletion) return fields.Integer("logprobs", &sampling->logprobs);
  bool wanted = false;
  OPENAI_RETURN_IF_ERROR(fields.Bool("logprobs", &wanted));
  std::optional<int64_t> top;
  OPENAI_RETURN_IF_ERROR(fields.Integer("top_logprobs", &top));
  if (wanted) sampling->logprobs = top.value_or(0);
  return {};
}

// content: a string, or an array of parts of which only text parts are read.
ApiError ParseContent(const Json& content, const std::string& name, std::string* out) {
  if (content.IsString()) {
    *out = Text(content);
    return {};
  }
  if (!content.IsArray()) return WrongType(name, "a string or an array of content parts");
  for (rapidjson::SizeType i = 0; i < content.Size(); ++i) {
    const Json& part = content[i];
    const std::string part_name = name + "[" + std::to_string(i) + "]";
    if (!part.IsObject()) return WrongType(part_name, "an object");
    const Fields fields(part, part_name + ".");
    std::string type, text;
    OPENAI_RETURN_IF_ERROR(fields.String("type", &type));
    if (type != "text") {
      return BadRequest(part_name + ".type", "content parts of type '" + type +
                                                 "' are not supported; only 'text' is",
                        "invalid_value");
    }
    OPENAI_RETURN_IF_ERROR(fields.String("text", &text));
    if (!out->empty()) out->push_back('\n');
    out->append(text);
  }
  return {};
}

bool KnownRole(std::string_view role) {
  return role == "system" || role == "developer" || role == "user" || role == "assistant" ||
         role == "tool" || role == "function";
}

ApiError ParseMessages(const Fields& fields, std::vector<ChatMessage>* out) {
  const Json* messages = fields.Find("messages");
  if (messages == nullptr) return Missing("messages");
  if (!messages->IsArray()) return WrongType("messages", "an array");
  if (messages->Empty()) return BadRequest("messages", "'messages' must not be empty", "invalid_value");
  for (rapidjson::SizeType i = 0; i < messages->Size(); ++i) {
    const std::string name = "messages[" + std::to_string(i) + "]";
    const Json& message = (*messages)[i];
    if (!message.IsObject()) return WrongType(name, "an object");
    const Fields one(message, name + ".");
    ChatMessage& parsed = out->emplace_back();
    OPENAI_RETURN_IF_ERROR(one.String("role", &parsed.role));
    if (!KnownRole(parsed.role)) {
      return BadRequest(name + ".role", "unknown role '" + parsed.role + "'", "invalid_value");
    }
    if (const Json* content = one.Find("content"); content != nullptr) {
      OPENAI_RETURN_IF_ERROR(ParseContent(*content, name + ".content", &parsed.content));
    }
  }
  return {};
}

// What each kind reads beyond the common fields.
ApiError ParseInputs(ApiKind kind, const Fields& fields, ApiRequest* out) {
  if (kind == ApiKind::kChat) return ParseMessages(fields, &out->messages);
  const char* name = kind == ApiKind::kCompletion ? "prompt" : "input";
  if (fields.Find(name) == nullptr) return Missing(name);
  OPENAI_RETURN_IF_ERROR(StringOrList(fields, name, &out->prompts));
  if (out->prompts.empty()) return BadRequest(name, std::string("'") + name + "' must not be empty");
  if (kind == ApiKind::kCompletion) return fields.Bool("echo", &out->echo);
  if (kind != ApiKind::kEmbedding) return {};
  std::string format = "float";
  OPENAI_RETURN_IF_ERROR(fields.String("encoding_format", &format));
  if (format != "float" && format != "base64") {
    return BadRequest("encoding_format", "'encoding_format' must be 'float' or 'base64'",
                      "invalid_value");
  }
  out->base64 = format == "base64";
  return {};
}

ApiError ParseStreaming(const Fields& fields, ApiRequest* out) {
  OPENAI_RETURN_IF_ERROR(fields.Bool("stream", &out->stream));
  const Json* options = fields.Find("stream_options");
  if (options == nullptr) return {};
  if (!options->IsObject()) return WrongType("stream_options", "an object");
  return Fields(*options, "stream_options.").Bool("include_usage", &out->include_usage);
}

}  // namespace

ApiError ParseApiRequest(ApiKind kind, std::string_view body, ApiRequest* out) {
  *out = ApiRequest();
  out->kind = kind;
  rapidjson::Document document;
  document.Parse(body.data(), body.size());
  if (document.HasParseError()) {
    return BadRequest("", "the request body is not valid JSON", "invalid_json");
  }
  if (!document.IsObject()) return BadRequest("", "the request body must be a JSON object");
  const Fields fields(document, "");
  OPENAI_RETURN_IF_ERROR(fields.String("model", &out->model));
  if (out->model.empty()) return Missing("model");
  OPENAI_RETURN_IF_ERROR(ParseInputs(kind, fields, out));
  OPENAI_RETURN_IF_ERROR(fields.String("user", &out->user));
  if (kind == ApiKind::kEmbedding) return {};
  OPENAI_RETURN_IF_ERROR(ParseSampling(fields, &out->sampling));
  OPENAI_RETURN_IF_ERROR(ParseLogprobs(kind, fields, &out->sampling));
  std::optional<int64_t> n;
  OPENAI_RETURN_IF_ERROR(fields.Integer("n", &n));
  out->n = n.value_or(1);
  if (out->n < 1 || out->n > kMaxChoices) {
    return BadRequest("n", "'n' must be between 1 and " + std::to_string(kMaxChoices),
                      "invalid_value");
  }
  return ParseStreaming(fields, out);
}

}  // namespace inferd::http::openai

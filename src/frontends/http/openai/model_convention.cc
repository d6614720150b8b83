// A model's side of the OpenAI tensor convention.
#include "http/openai/model_convention.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>

#include "common/server_error.h"
#include "http/tensor_json.h"

namespace inferd::http::openai {
namespace {

// parameters { key: `key` value: { string_value: ... } } of a config document.
bool ConfigParameter(const rapidjson::Document& config, const char* key, std::string* out) {
  const auto parameters = config.FindMember("parameters");
  if (parameters == config.MemberEnd() || !parameters->value.IsObject()) return false;
  const auto entry = parameters->value.FindMember(key);
  if (entry == parameters->value.MemberEnd() || !entry->value.IsObject()) return false;
  const auto value = entry->value.FindMember("string_value");
  if (value == entry->value.MemberEnd() || !value->value.IsString()) return false;
  out->assign(value->value.GetString(), value->value.GetStringLength());
  return true;
}

Status ReadChatTemplate(INFERD_Server* server, const std::string& model, ChatTemplate* out) {
  INFERD_Message* message = nullptr;
  RETURN_IF_ERROR(
      StatusFromServerError(INFERD_ServerModelConfig(server, model.c_str(), -1, &message)));
  const char* base = nullptr;
  size_t size = 0;
  Status status = StatusFromServerError(INFERD_MessageSerializeToJson(message, &base, &size));
  if (status.ok()) {
    rapidjson::Document config;
    config.Parse(base, size);
    if (!config.HasParseError() && config.IsObject()) {
      ConfigParameter(config, "chat_template", &out->name_or_pattern);
      ConfigParameter(config, "chat_template_prefix", &out->prefix);
      ConfigParameter(config, "chat_template_generation_prompt", &out->generation_prompt);
    }
  }
  DiscardServerError(INFERD_MessageDelete(message));
  return status;
}

void WriteString(const std::string& text, JsonWriter* writer) {
  writer->String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void WriteMessages(const std::vector<ChatMessage>& messages, JsonWriter* writer) {
  rapidjson::StringBuffer json;
  JsonWriter inner(json);
  inner.StartArray();
  for (const ChatMessage& message : messages) {
    inner.StartObject();
    inner.Key("role");
    WriteString(message.role, &inner);
    inner.Key("content");
    WriteString(message.content, &inner);
    inner.EndObject();
  }
  inner.EndArray();
  writer->String(json.GetString(), static_cast<rapidjson::SizeType>(json.GetSize()));
}

}  // namespace

bool ModelConvention::Has(const char* input) const {
  for (const ModelInput& model_input : inputs) {
    if (model_input.name == input) return true;
  }
  return false;
}

Status DescribeModel(INFERD_Server* server, const std::string& model,
                     ModelConvention* convention) {
  RETURN_IF_ERROR(FetchModelInputs(server, model, -1, &convention->inputs));
  return ReadChatTemplate(server, model, &convention->chat_template);
}

Status CheckConvention(const ModelConvention& convention, const std::string& model) {
  for (const ModelInput& input : convention.inputs) {
    if (input.name == kTextInput && input.datatype == INFERD_TYPE_BYTES) return Status::Ok();
  }
  return Status::InvalidArg("model '" + model +
                            "' does not follow the OpenAI tensor convention: it has no BYTES "
                            "input 'text_input' (see docs/openai-api.md)");
}

std::string SamplingJson(const Sampling& sampling, int64_t seed_offset) {
  rapidjson::StringBuffer json;
  JsonWriter writer(json);
  writer.StartObject();
  auto number = [&writer](const char* key, const std::optional<double>& value) {
    if (!value) return;
    writer.Key(key);
    writer.Double(*value);
  };
  if (sampling.max_tokens) {
    writer.Key("max_tokens");
    writer.Int64(*sampling.max_tokens);
  }
  number("temperature", sampling.temperature);
  number("top_p", sampling.top_p);
  number("presence_penalty", sampling.presence_penalty);
  number("frequency_penalty", sampling.frequency_penalty);
  if (sampling.seed) {
    writer.Key("seed");
    writer.Int64(*sampling.seed + seed_offset);
  }
  if (!sampling.stop.empty()) {
    writer.Key("stop");
    writer.StartArray();
    for (const std::string& stop : sampling.stop) WriteString(stop, &writer);
    writer.EndArray();
  }
  if (sampling.logprobs) {
    writer.Key("logprobs");
    writer.Int64(*sampling.logprobs);
  }
  writer.EndObject();
  return std::string(json.GetString(), json.GetSize());
}

std::string GenerateBody(const ModelConvention& convention, const ApiRequest& request,
                         const std::string& prompt, int64_t choice) {
  rapidjson::StringBuffer json;
  JsonWriter writer(json);
  writer.StartObject();
  writer.Key(kTextInput);
  WriteString(prompt, &writer);
  auto flag = [&](const char* input, bool value) {
    if (!convention.Has(input)) return;
    writer.Key(input);
    writer.Bool(value);
  };
  if (request.kind != ApiKind::kEmbedding) {
    flag("stream", request.stream);
    flag("exclude_input_in_output", true);
    flag("return_finish_reason", true);
    flag("return_num_input_tokens", true);
    flag("return_num_output_tokens", true);
    if (convention.Has("sampling_parameters")) {
      writer.Key("sampling_parameters");
      WriteString(SamplingJson(request.sampling, choice), &writer);
    }
    if (request.kind == ApiKind::kChat && convention.Has("chat_messages")) {
      writer.Key("chat_messages");
      WriteMessages(request.messages, &writer);
    }
  }
  writer.EndObject();
  return std::string(json.GetString(), json.GetSize());
}

}  // namespace inferd::http::openai

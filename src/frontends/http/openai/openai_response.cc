// OpenAI's response objects.
#include "http/openai/openai_response.h"

#include "http/base64.h"

namespace inferd::http::openai {
namespace {

void String(std::string_view text, JsonWriter* writer) {
  writer->String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void Key(std::string_view key, std::string_view value, JsonWriter* writer) {
  writer->Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  String(value, writer);
}

std::string_view IdPrefix(ApiKind kind) { return kind == ApiKind::kChat ? "chatcmpl-" : "cmpl-"; }

// id, object, created, model.
void Header(const Exchange& exchange, std::string_view object, JsonWriter* writer) {
  const ApiRequest& request = exchange.request();
  Key("id", std::string(IdPrefix(request.kind)) + exchange.id(), writer);
  Key("object", object, writer);
  writer->Key("created");
  writer->Int64(exchange.created());
  Key("model", request.model, writer);
}

void Usage(const Exchange& exchange, JsonWriter* writer) {
  writer->Key("usage");
  writer->StartObject();
  writer->Key("prompt_tokens");
  writer->Int64(exchange.prompt_tokens());
  if (exchange.request().kind != ApiKind::kEmbedding) {
    writer->Key("completion_tokens");
    writer->Int64(exchange.completion_tokens());
  }
  writer->Key("total_tokens");
  writer->Int64(exchange.prompt_tokens() + exchange.completion_tokens());
  writer->EndObject();
}

void FinishReason(std::string_view reason, JsonWriter* writer) {
  writer->Key("finish_reason");
  if (reason.empty()) {
    writer->Null();
  } else {
    String(reason, writer);
  }
}

void AnswerChoice(const Exchange& exchange, size_t index, JsonWriter* writer) {
  const Choice& choice = exchange.choice(index);
  const ApiRequest& request = exchange.request();
  writer->StartObject();
  writer->Key("index");
  writer->Uint64(index);
  if (request.kind == ApiKind::kChat) {
    writer->Key("message");
    writer->StartObject();
    Key("role", "assistant", writer);
    Key("content", choice.text, writer);
    writer->EndObject();
  } else if (request.echo) {
    Key("text", request.prompts[index / request.n] + choice.text, writer);
  } else {
    Key("text", choice.text, writer);
  }
  writer->Key("logprobs");
  writer->Null();
  FinishReason(choice.finish_reason, writer);
  writer->EndObject();
}

void RenderEmbeddings(const Exchange& exchange, JsonWriter* writer) {
  writer->StartObject();
  Key("object", "list", writer);
  writer->Key("data");
  writer->StartArray();
  for (size_t i = 0; i < exchange.choice_count(); ++i) {
    writer->StartObject();
    Key("object", "embedding", writer);
    writer->Key("index");
    writer->Uint64(i);
    writer->Key("embedding");
    const std::vector<float>& embedding = exchange.choice(i).embedding;
    if (exchange.request().base64) {
      // Little-endian FP32, as OpenAI encodes it (this server runs on
      // little-endian machines only).
      String(EncodeBase64(std::string_view(reinterpret_cast<const char*>(embedding.data()),
                                           embedding.size() * sizeof(float))),
             writer);
    } else {
      writer->StartArray();
      for (const float value : embedding) writer->Double(value);
      writer->EndArray();
    }
    writer->EndObject();
  }
  writer->EndArray();
  Key("model", exchange.request().model, writer);
  Usage(exchange, writer);
  writer->EndObject();
}

}  // namespace

void RenderAnswer(const Exchange& exchange, JsonWriter* writer) {
  const ApiKind kind = exchange.request().kind;
  if (kind == ApiKind::kEmbedding) return RenderEmbeddings(exchange, writer);
  writer->StartObject();
  Header(exchange, kind == ApiKind::kChat ? "chat.completion" : "text_completion", writer);
  writer->Key("choices");
  writer->StartArray();
  for (size_t i = 0; i < exchange.choice_count(); ++i) AnswerChoice(exchange, i, writer);
  writer->EndArray();
  Usage(exchange, writer);
  writer->EndObject();
}

void RenderChunk(const Exchange& exchange, std::string_view delta, bool first,
                 std::string_view finish_reason, JsonWriter* writer) {
  const bool chat = exchange.request().kind == ApiKind::kChat;
  writer->StartObject();
  Header(exchange, chat ? "chat.completion.chunk" : "text_completion", writer);
  writer->Key("choices");
  writer->StartArray();
  writer->StartObject();
  writer->Key("index");
  writer->Uint64(exchange.current());
  if (chat) {
    writer->Key("delta");
    writer->StartObject();
    if (first) Key("role", "assistant", writer);
    if (!delta.empty() || finish_reason.empty()) Key("content", delta, writer);
    writer->EndObject();
  } else {
    Key("text", delta, writer);
  }
  writer->Key("logprobs");
  writer->Null();
  FinishReason(finish_reason, writer);
  writer->EndObject();
  writer->EndArray();
  if (exchange.request().include_usage) {
    writer->Key("usage");
    writer->Null();
  }
  writer->EndObject();
}

void RenderUsageChunk(const Exchange& exchange, JsonWriter* writer) {
  const bool chat = exchange.request().kind == ApiKind::kChat;
  writer->StartObject();
  Header(exchange, chat ? "chat.completion.chunk" : "text_completion", writer);
  writer->Key("choices");
  writer->StartArray();
  writer->EndArray();
  Usage(exchange, writer);
  writer->EndObject();
}

void RenderModelList(const std::vector<std::string>& models, JsonWriter* writer) {
  writer->StartObject();
  Key("object", "list", writer);
  writer->Key("data");
  writer->StartArray();
  for (const std::string& model : models) RenderModel(model, writer);
  writer->EndArray();
  writer->EndObject();
}

void RenderModel(const std::string& model, JsonWriter* writer) {
  writer->StartObject();
  Key("id", model, writer);
  Key("object", "model", writer);
  writer->Key("created");
  writer->Int64(0);
  Key("owned_by", "inferd", writer);
  writer->EndObject();
}

}  // namespace inferd::http::openai

#include "http/openai/openai_request.h"

#include <gtest/gtest.h>

namespace inferd::http::openai {
namespace {

ApiRequest Parse(ApiKind kind, std::string_view body) {
  ApiRequest request;
  const ApiError error = ParseApiRequest(kind, body, &request);
  EXPECT_TRUE(error.ok()) << error.message;
  return request;
}

ApiError Refuse(ApiKind kind, std::string_view body) {
  ApiRequest request;
  return ParseApiRequest(kind, body, &request);
}

TEST(OpenAiRequestTest, ReadsACompletionWithEverySamplingField) {
  const ApiRequest r = Parse(ApiKind::kCompletion, R"({
      "model": "m", "prompt": ["a", "b"], "max_tokens": 7, "temperature": 0.5, "top_p": 1,
      "n": 2, "stop": "x", "seed": 3, "presence_penalty": -1, "frequency_penalty": 2,
      "logprobs": 2, "user": "u", "echo": true, "stream": true,
      "stream_options": {"include_usage": true}, "unknown": {"ignored": [1]}})");
  EXPECT_EQ(r.model, "m");
  EXPECT_EQ(r.prompts, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.sampling.max_tokens, 7);
  EXPECT_EQ(r.sampling.temperature, 0.5);
  EXPECT_EQ(r.sampling.top_p, 1.0);
  EXPECT_EQ(r.n, 2);
  EXPECT_EQ(r.sampling.stop, std::vector<std::string>{"x"});
  EXPECT_EQ(r.sampling.seed, 3);
  EXPECT_EQ(r.sampling.presence_penalty, -1.0);
  EXPECT_EQ(r.sampling.logprobs, 2);
  EXPECT_EQ(r.user, "u");
  EXPECT_TRUE(r.echo);
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage);
}

TEST(OpenAiRequestTest, ReadsChatMessagesWithContentParts) {
  const ApiRequest r = Parse(ApiKind::kChat, R"({"model": "m", "max_completion_tokens": 4,
      "messages": [{"role": "system", "content": "s"},
                   {"role": "user", "content": [{"type": "text", "text": "a"},
                                                {"type": "text", "text": "b"}]},
                   {"role": "assistant", "content": null}],
      "logprobs": true, "top_logprobs": 3, "temperature": null})");
  ASSERT_EQ(r.messages.size(), 3u);
  EXPECT_EQ(r.messages[1].content, "a\nb");
  EXPECT_EQ(r.messages[2].content, "");
  EXPECT_EQ(r.sampling.max_tokens, 4);
  EXPECT_EQ(r.sampling.logprobs, 3);
  EXPECT_FALSE(r.sampling.temperature);  // null counts as absent
}

TEST(OpenAiRequestTest, NamesTheFieldOfAWrongType) {
  EXPECT_EQ(Refuse(ApiKind::kCompletion, R"({"model": "m", "prompt": "x", "top_p": "1"})").param,
            "top_p");
  EXPECT_EQ(Refuse(ApiKind::kCompletion, R"({"model": 1, "prompt": "x"})").param, "model");
  EXPECT_EQ(Refuse(ApiKind::kCompletion, R"({"model": "m", "prompt": [1, 2]})").param, "prompt");
  EXPECT_EQ(Refuse(ApiKind::kChat, R"({"model": "m", "messages": [{"role": "user",
      "content": [{"type": "image_url"}]}]})").param,
            "messages[0].content[0].type");
  EXPECT_EQ(Refuse(ApiKind::kChat, R"({"model": "m", "messages": [],
      "stream_options": {"include_usage": 1}})").param, "messages");
  EXPECT_EQ(Refuse(ApiKind::kChat, R"({"model": "m", "messages": [{"role": "user"}],
      "stream_options": {"include_usage": 1}})").param, "stream_options.include_usage");
  const ApiError error = Refuse(ApiKind::kCompletion, R"({"model": "m", "prompt": "x", "n": 0})");
  EXPECT_EQ(error.http_status, 400u);
  EXPECT_EQ(error.param, "n");
}

TEST(OpenAiRequestTest, RequiresModelAndInputs) {
  EXPECT_EQ(Refuse(ApiKind::kCompletion, R"({"prompt": "x"})").param, "model");
  EXPECT_EQ(Refuse(ApiKind::kCompletion, R"({"model": "m"})").param, "prompt");
  EXPECT_EQ(Refuse(ApiKind::kChat, R"({"model": "m"})").param, "messages");
  EXPECT_EQ(Refuse(ApiKind::kEmbedding, R"({"model": "m"})").param, "input");
  EXPECT_EQ(Refuse(ApiKind::kCompletion, "[1]").http_status, 400u);
  EXPECT_EQ(Refuse(ApiKind::kCompletion, "{").code, "invalid_json");
}

TEST(OpenAiRequestTest, ReadsEmbeddingsEncodingFormat) {
  EXPECT_TRUE(Parse(ApiKind::kEmbedding, R"({"model": "m", "input": "x",
      "encoding_format": "base64"})").base64);
  EXPECT_FALSE(Parse(ApiKind::kEmbedding, R"({"model": "m", "input": ["x"]})").base64);
  EXPECT_EQ(Refuse(ApiKind::kEmbedding, R"({"model": "m", "input": "x",
      "encoding_format": "int8"})").param, "encoding_format");
}

}  // namespace
}  // namespace inferd::http::openai

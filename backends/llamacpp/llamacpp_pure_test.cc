// The llamacpp backend's pure parts: text streaming (UTF-8, stop strings),
// sampling_parameters, the model settings and the configuration completion.
#include <gtest/gtest.h>

#include "config_completion.h"
#include "llama_settings.h"
#include "sampling_options.h"
#include "text_stream.h"

namespace inferd::llamacpp {
namespace {

TEST(TextStream, HoldsASplitUtf8CharacterUntilItsLastByte) {
  TextStream stream({});
  bool stopped = false;
  const std::string euro = "\xE2\x82\xAC";
  EXPECT_EQ(stream.Push("a" + euro.substr(0, 1), &stopped), "a");
  EXPECT_EQ(stream.Push(euro.substr(1, 1), &stopped), "");
  EXPECT_EQ(stream.Push(euro.substr(2) + "b", &stopped), euro + "b");
  EXPECT_FALSE(stopped);
}

TEST(TextStream, CutsBeforeAStopStringSpreadOverTokens) {
  TextStream stream({"END"});
  bool stopped = false;
  EXPECT_EQ(stream.Push("hello E", &stopped), "hello ");
  EXPECT_FALSE(stopped);
  EXPECT_EQ(stream.Push("N", &stopped), "");
  EXPECT_EQ(stream.Push("D tail", &stopped), "");
  EXPECT_TRUE(stopped);
}

TEST(TextStream, ReleasesHeldTextThatDidNotBecomeAStopString) {
  TextStream stream({"END"});
  bool stopped = false;
  EXPECT_EQ(stream.Push("xE", &stopped), "x");
  EXPECT_EQ(stream.Push("x", &stopped), "Ex");
  EXPECT_EQ(stream.Push("EN", &stopped), "");
  EXPECT_EQ(stream.Flush(), "EN");
}

TEST(CompleteUtf8Length, CountsOnlyWholeCharacters) {
  EXPECT_EQ(CompleteUtf8Length("ab"), 2u);
  EXPECT_EQ(CompleteUtf8Length("a\xC3"), 1u);
  EXPECT_EQ(CompleteUtf8Length("a\xC3\xA9"), 3u);
  EXPECT_EQ(CompleteUtf8Length("\xF0\x9F\x98"), 0u);
}

TEST(SamplingJson, ReadsTheFieldsAndRefusesWrongTypes) {
  SamplingOptions options;
  EXPECT_EQ(ParseSamplingJson(R"({"temperature": 0, "top_p": 0.5, "top_k": 4, "seed": 7,
      "max_tokens": 9, "stop": ["a", "b"], "presence_penalty": 0.1})", &options), "");
  EXPECT_EQ(options.temperature, 0.0f);
  EXPECT_EQ(options.top_k, 4);
  EXPECT_EQ(options.seed, 7u);
  EXPECT_EQ(options.max_tokens, 9);
  EXPECT_EQ(options.stop, (std::vector<std::string>{"a", "b"}));
  SamplingOptions other;
  EXPECT_EQ(ParseSamplingJson(R"({"stop": "x"})", &other), "");
  EXPECT_EQ(other.stop, std::vector<std::string>{"x"});
  EXPECT_EQ(other.max_tokens, 16);  // vLLM's default
  EXPECT_EQ(ParseSamplingJson(R"({"temperature": "hot"})", &other), "'temperature' is not a number");
  EXPECT_EQ(ParseSamplingJson(R"({"max_tokens": 0})", &other), "'max_tokens' is below 1");
  EXPECT_EQ(ParseSamplingJson("[1]", &other), "is not a JSON object");
}

TEST(LlamaSettings, ReadsParametersAndNamesTheBadOne) {
  LlamaSettings settings;
  EXPECT_EQ(ParseLlamaSettings(R"({"parameters": {"context_size": {"string_value": "512"},
      "parallel": {"string_value": "8"}, "kv_cache_type": {"string_value": "q8_0"},
      "seed": {"string_value": "3"}}})", &settings), "");
  EXPECT_EQ(settings.context_size, 512);
  EXPECT_EQ(settings.parallel, 8);
  EXPECT_EQ(settings.kv_cache_type, "q8_0");
  EXPECT_EQ(settings.seed, 3u);
  LlamaSettings bad;
  EXPECT_EQ(ParseLlamaSettings(R"({"parameters": {"parallel": {"string_value": "x"}}})", &bad),
            "llamacpp backend: parameter 'parallel' is 'x', not an integer >= 1");
  EXPECT_NE(ParseLlamaSettings(R"({"parameters": {"kv_cache_type": {"string_value": "q2"}}})", &bad)
                .find("'kv_cache_type'"), std::string::npos);
}

TEST(ConfigCompletion, AddsTheConventionAndTheChatTemplate) {
  const std::string completed = CompleteConfig(R"({"name": "m", "backend": "llamacpp"})", "chatml");
  EXPECT_NE(completed.find(R"("name":"text_input")"), std::string::npos);
  EXPECT_NE(completed.find(R"("decoupled":true)"), std::string::npos);
  EXPECT_NE(completed.find(R"("chat_template":{"string_value":"chatml"})"), std::string::npos);
  const DeclaredOutputs outputs = ReadDeclaredOutputs(completed);
  EXPECT_TRUE(outputs.finish_reason && outputs.num_input_tokens && outputs.num_output_tokens);
  EXPECT_EQ(CompleteConfig(R"({"input": [{"name": "text_input"}], "output": [{"name": "text_output"}],
      "parameters": {"chat_template": {"string_value": "llama3"}}})", "chatml"), "");
}

}  // namespace
}  // namespace inferd::llamacpp

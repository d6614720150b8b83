#include "http/openai/exchange.h"

#include <gtest/gtest.h>

namespace inferd::http::openai {
namespace {

using std::chrono::milliseconds;

const Clock::time_point kStart{};

ModelConvention Convention(bool sampling) {
  ModelConvention convention;
  convention.inputs.push_back({"text_input", INFERD_TYPE_BYTES, {1}});
  if (sampling) convention.inputs.push_back({"sampling_parameters", INFERD_TYPE_BYTES, {1}});
  return convention;
}

ApiRequest Completion(int64_t n = 1) {
  ApiRequest request;
  request.model = "m";
  request.prompts = {"a prompt of five words"};
  request.n = n;
  return request;
}

ResponseContent Text(std::string text) {
  ResponseContent content;
  content.text = std::move(text);
  return content;
}

TEST(ExchangeTest, CutsAtAStopStringAcrossResponses) {
  ApiRequest request = Completion();
  request.sampling.stop = {"END"};
  Exchange exchange(request, Convention(true), {"p"}, kStart);
  std::string delta;
  EXPECT_FALSE(exchange.Add(Text("one E"), kStart + milliseconds(5), &delta));
  EXPECT_EQ(delta, "one E");
  // The stop string straddles two responses: the text is cut before it.
  EXPECT_TRUE(exchange.Add(Text("ND two"), kStart + milliseconds(9), &delta));
  EXPECT_EQ(delta, "");
  EXPECT_FALSE(exchange.Add(Text(" more"), kStart + milliseconds(12), &delta));
  exchange.EndChoice();
  EXPECT_EQ(exchange.choice(0).text, "one ");
  EXPECT_EQ(exchange.choice(0).finish_reason, "stop");
  EXPECT_EQ(exchange.first_token(), kStart + milliseconds(5));
  EXPECT_FALSE(exchange.Next());
}

TEST(ExchangeTest, EnforcesMaxTokensForModelsWithoutSamplingParameters) {
  ApiRequest request = Completion();
  request.sampling.max_tokens = 2;
  Exchange exchange(request, Convention(false), {"p"}, kStart);
  std::string delta;
  EXPECT_FALSE(exchange.Add(Text(" a"), kStart, &delta));
  EXPECT_TRUE(exchange.Add(Text(" b"), kStart, &delta));
  exchange.EndChoice();
  EXPECT_EQ(exchange.choice(0).finish_reason, "length");
  EXPECT_EQ(exchange.completion_tokens(), 2);
}

TEST(ExchangeTest, TakesTheModelsFinishReasonAndTokenCounts) {
  ApiRequest request = Completion(2);
  request.sampling.max_tokens = 100;
  Exchange exchange(request, Convention(true), {"p q"}, kStart);
  ResponseContent content = Text("xyz");
  content.output_tokens = 7;
  content.input_tokens = 11;
  content.finish_reason = "length";
  std::string delta;
  EXPECT_FALSE(exchange.Add(content, kStart, &delta));
  exchange.EndChoice();
  EXPECT_EQ(exchange.choice(0).finish_reason, "length");
  ASSERT_TRUE(exchange.Next());
  EXPECT_FALSE(exchange.Add(Text("a b c"), kStart, &delta));
  exchange.EndChoice();
  EXPECT_EQ(exchange.choice(1).finish_reason, "stop");  // estimated 3 < 100
  EXPECT_EQ(exchange.completion_tokens(), 7 + 3);
  EXPECT_EQ(exchange.prompt_tokens(), 11);  // once per prompt, as reported
}

TEST(ExchangeTest, EstimatesPromptTokensByWords) {
  Exchange exchange(Completion(), Convention(true), {"  two\twords\n"}, kStart);
  EXPECT_EQ(exchange.prompt_tokens(), 2);
  EXPECT_EQ(EstimateTokens(""), 0);
  EXPECT_EQ(EstimateTokens(" a  b c "), 3);
}

TEST(ExchangeTest, SeedsEachChoiceApart) {
  ApiRequest request = Completion(3);
  request.sampling.seed = 10;
  Exchange exchange(request, Convention(true), {"p"}, kStart);
  EXPECT_NE(exchange.CurrentBody().find(R"(\"seed\":10)"), std::string::npos)
      << exchange.CurrentBody();
  exchange.EndChoice();
  ASSERT_TRUE(exchange.Next());
  EXPECT_NE(exchange.CurrentBody().find(R"(\"seed\":11)"), std::string::npos);
}

}  // namespace
}  // namespace inferd::http::openai

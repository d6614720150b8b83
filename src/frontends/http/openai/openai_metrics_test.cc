#include "http/openai/openai_metrics.h"

#include <gtest/gtest.h>

namespace inferd::http::openai {
namespace {

bool Has(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(OpenAiMetricsTest, EmptyBeforeTheFirstRequest) { EXPECT_EQ(OpenAiMetrics().Render(), ""); }

TEST(OpenAiMetricsTest, CountsFinishReasonsTokensAndHistograms) {
  OpenAiMetrics metrics;
  metrics.Record({"m", {"stop", "length"}, 4, 10, 0.02, 0.5});  // 20 tokens/s
  metrics.Record({"m", {"stop"}, 1, 0, std::nullopt, std::nullopt});
  metrics.Record({"a\"b", {"cancelled"}, 0, 0, std::nullopt, std::nullopt});
  const std::string text = metrics.Render();
  EXPECT_TRUE(Has(text, R"(inferd_openai_requests_total{model="m",finish_reason="stop"} 2)"));
  EXPECT_TRUE(Has(text, R"(inferd_openai_requests_total{model="m",finish_reason="length"} 1)"));
  EXPECT_TRUE(
      Has(text, R"(inferd_openai_requests_total{model="a\"b",finish_reason="cancelled"} 1)"));
  EXPECT_TRUE(Has(text, R"(inferd_openai_prompt_tokens_total{model="m"} 5)"));
  EXPECT_TRUE(Has(text, R"(inferd_openai_completion_tokens_total{model="m"} 10)"));
  EXPECT_TRUE(Has(text, R"(inferd_openai_time_to_first_token_seconds_bucket{model="m",le="0.01"} 0)"));
  EXPECT_TRUE(Has(text, R"(inferd_openai_time_to_first_token_seconds_bucket{model="m",le="0.025"} 1)"));
  EXPECT_TRUE(Has(text, R"(inferd_openai_time_to_first_token_seconds_count{model="m"} 1)"));
  EXPECT_TRUE(Has(text, R"(inferd_openai_output_tokens_per_second_bucket{model="m",le="10"} 0)"));
  EXPECT_TRUE(Has(text, R"(inferd_openai_output_tokens_per_second_bucket{model="m",le="20"} 1)"));
  EXPECT_TRUE(Has(text, R"(inferd_openai_output_tokens_per_second_sum{model="m"} 20)"));
  EXPECT_TRUE(Has(text, "# TYPE inferd_openai_time_to_first_token_seconds histogram"));
}

}  // namespace
}  // namespace inferd::http::openai

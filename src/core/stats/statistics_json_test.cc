// The statistics extension's JSON: compute counts are one count, read once.
#include "core/stats/statistics_json.h"

#include <gtest/gtest.h>

#include "core/stats/model_statistics.h"

namespace inferd {
namespace {

TEST(StatisticsJsonTest, ComputeInputInferAndOutputShowOneCount) {
  ModelStatistics stats(4);
  stats.RecordExecutionStart(/*request_count=*/3, /*rows=*/2, /*wall_ms=*/7);
  stats.RecordExecutionTime(3, 2, 1000, 2000, 3000);
  // As a reader could see it in the middle of the next execution's start:
  // infer already counted, input and output not yet.
  stats.compute_infer.AddCount(1);
  const std::string json = StatisticsJson({{"m", 1, &stats, 0, 0, 0}});
  EXPECT_NE(json.find("\"compute_input\":{\"count\":4,\"ns\":3000}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"compute_infer\":{\"count\":4,\"ns\":6000}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"compute_output\":{\"count\":4,\"ns\":9000}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"batch_size\":2,\"compute_input\":{\"count\":1,\"ns\":1000}"),
            std::string::npos)
      << json;
}

TEST(StatisticsJsonTest, RateLimiterWaitIsAnInferenceStat) {
  ModelStatistics stats(0);
  const std::string none = StatisticsJson({{"m", 1, &stats, 0, 0, 0}});
  EXPECT_NE(none.find("\"rate_limiter_wait\":{\"count\":0,\"ns\":0}"), std::string::npos)
      << none;
  stats.RecordRateLimiterWait(1500);
  stats.RecordRateLimiterWait(0);
  const std::string json = StatisticsJson({{"m", 1, &stats, 0, 0, 0}});
  EXPECT_NE(json.find("\"rate_limiter_wait\":{\"count\":2,\"ns\":1500}"), std::string::npos)
      << json;
}

TEST(StatisticsJsonTest, ResponseStatsByIndexAsTritonRendersThem) {
  ModelStatistics stats(0);
  EXPECT_NE(StatisticsJson({{"m", 1, &stats, 0, 0, 0}}).find("\"response_stats\":{}"),
            std::string::npos);
  stats.responses.Record(0, ResponseOutcome::kSuccess, 100, 20);
  stats.responses.Record(0, ResponseOutcome::kSuccess, 300, 40);
  stats.responses.Record(1, ResponseOutcome::kEmpty, 0, 0);
  const std::string json = StatisticsJson({{"m", 1, &stats, 0, 0, 0}});
  EXPECT_NE(json.find("\"response_stats\":{\"0\":{\"compute_infer\":{\"count\":2,\"ns\":400},"
                      "\"compute_output\":{\"count\":2,\"ns\":60},"
                      "\"success\":{\"count\":2,\"ns\":460},"
                      "\"fail\":{\"count\":0,\"ns\":0},"
                      "\"empty_response\":{\"count\":0,\"ns\":0},"
                      "\"cancel\":{\"count\":0,\"ns\":0}},\"1\":{"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"empty_response\":{\"count\":1,\"ns\":0}"), std::string::npos) << json;
  EXPECT_EQ(json.find("\"2\":"), std::string::npos) << json;
}

TEST(ResponseStatisticsTest, IndexesPastTheLimitAreNotKept) {
  ResponseStatistics responses;
  responses.Record(ResponseStatistics::kMaxIndexes, ResponseOutcome::kSuccess, 1, 1);
  responses.Record(ResponseStatistics::kMaxIndexes - 1, ResponseOutcome::kSuccess, 1, 1);
  EXPECT_EQ(responses.At(ResponseStatistics::kMaxIndexes), nullptr);
  ASSERT_NE(responses.At(ResponseStatistics::kMaxIndexes - 1), nullptr);
  EXPECT_EQ(responses.At(0), nullptr);
}

}  // namespace
}  // namespace inferd

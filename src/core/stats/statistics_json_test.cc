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
  const std::string json = StatisticsJson({{"m", 1, &stats, 0}});
  EXPECT_NE(json.find("\"compute_input\":{\"count\":4,\"ns\":3000}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"compute_infer\":{\"count\":4,\"ns\":6000}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"compute_output\":{\"count\":4,\"ns\":9000}"), std::string::npos) << json;
  EXPECT_NE(json.find("\"batch_size\":2,\"compute_input\":{\"count\":1,\"ns\":1000}"),
            std::string::npos)
      << json;
}

}  // namespace
}  // namespace inferd

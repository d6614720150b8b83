// Unit tests of latency_stats.h: nearest-rank percentiles, summaries and the
// measurement window of the recorder.
#include "loadgen/latency_stats.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace inferd::loadgen {
namespace {

std::vector<int64_t> OneToHundred() {
  std::vector<int64_t> values(100);
  for (int i = 0; i < 100; ++i) values[i] = i + 1;
  return values;
}

TEST(LatencyStatsTest, PercentileOfOneToHundredIsTheRank) {
  const std::vector<int64_t> values = OneToHundred();
  EXPECT_EQ(Percentile(values, 50), 50);
  EXPECT_EQ(Percentile(values, 90), 90);
  EXPECT_EQ(Percentile(values, 95), 95);
  EXPECT_EQ(Percentile(values, 99), 99);
  EXPECT_EQ(Percentile(values, 100), 100);
}

TEST(LatencyStatsTest, PercentileRoundsTheRankUp) {
  const std::vector<int64_t> values = {10, 20, 30};
  EXPECT_EQ(Percentile(values, 50), 20);  // rank ceil(1.5) = 2
  EXPECT_EQ(Percentile(values, 90), 30);  // rank ceil(2.7) = 3
  EXPECT_EQ(Percentile(values, 1), 10);   // rank ceil(0.03) = 1
}

TEST(LatencyStatsTest, PercentileOfEmptyIsZeroAndOfOneIsThatValue) {
  EXPECT_EQ(Percentile({}, 99), 0);
  EXPECT_EQ(Percentile({7}, 50), 7);
  EXPECT_EQ(Percentile({7}, 99), 7);
}

TEST(LatencyStatsTest, SummarizeSortsAndComputesThroughputAndMean) {
  std::vector<int64_t> values = OneToHundred();
  std::shuffle(values.begin(), values.end(), std::mt19937(42));
  const LatencySummary summary = Summarize(values, 3, 2.0);
  EXPECT_EQ(summary.requests, 100u);
  EXPECT_EQ(summary.errors, 3u);
  EXPECT_DOUBLE_EQ(summary.requests_per_second, 50.0);
  EXPECT_EQ(summary.mean_ns, 50);  // 50.5 truncated
  EXPECT_EQ(summary.min_ns, 1);
  EXPECT_EQ(summary.max_ns, 100);
  EXPECT_EQ(summary.p50_ns, 50);
  EXPECT_EQ(summary.p99_ns, 99);
}

TEST(LatencyStatsTest, RecorderKeepsOnlyTheWindow) {
  LatencyRecorder recorder;
  recorder.RecordSuccess(1000);  // warm-up: counted in totals only
  recorder.RecordError("warm-up failure");
  recorder.StartWindow();
  recorder.RecordSuccess(200);
  recorder.RecordSuccess(400);
  recorder.RecordError("model 'm': boom");
  recorder.RecordError("second");
  const LatencySummary summary = recorder.EndWindow(1.0);
  recorder.RecordSuccess(5);  // after the window: dropped
  EXPECT_EQ(summary.requests, 2u);
  EXPECT_EQ(summary.errors, 2u);
  EXPECT_EQ(summary.max_ns, 400);
  EXPECT_EQ(summary.first_error, "model 'm': boom");
  EXPECT_EQ(recorder.total_successes(), 4u);
  EXPECT_EQ(recorder.total_errors(), 3u);
}

}  // namespace
}  // namespace inferd::loadgen

// Latency summaries: quantiles over a sliding window of max_age on the
// injected clock, count and sum over all time.
#include "core/stats/latency_summary.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "core/timing/fake_clock.h"

namespace inferd {
namespace {

using std::chrono::seconds;

MetricsConfig Config() {
  MetricsConfig config;
  config.summary_latencies = true;
  config.quantiles = {{0.5, 0.05}, {0.9, 0.01}};
  return config;  // prometheus-cpp's window: 60 s in 5 buckets
}

TEST(LatencySummaryTest, ReportsQuantilesCountAndSum) {
  FakeClock clock;
  LatencySummary summary(Config(), clock);
  for (int v = 1; v <= 100; ++v) summary.Observe(v);
  summary.Observe(1000, /*times=*/3);
  const LatencySummary::Snapshot s = summary.Read();
  EXPECT_EQ(s.count, 103u);
  EXPECT_DOUBLE_EQ(s.sum, 5050 + 3000);
  ASSERT_EQ(s.values.size(), 2u);
  EXPECT_NEAR(s.values[0], 52, 103 * 0.05 + 1);
  EXPECT_NEAR(s.values[1], 93, 103 * 0.01 + 1);
  EXPECT_EQ(s.targets[1].quantile, 0.9);
}

TEST(LatencySummaryTest, ValuesLeaveTheWindowAfterMaxAge) {
  FakeClock clock;
  LatencySummary summary(Config(), clock);
  summary.Observe(10);
  clock.Advance(seconds(59));
  EXPECT_EQ(summary.Read().values[0], 10);  // still within the last 60 s
  clock.Advance(seconds(1));
  const LatencySummary::Snapshot s = summary.Read();
  EXPECT_TRUE(std::isnan(s.values[0]));  // gone from the quantiles...
  EXPECT_EQ(s.count, 1u);                // ...but counted for ever
  EXPECT_EQ(s.sum, 10);
}

TEST(LatencySummaryTest, RecentValuesReplaceOldOnes) {
  FakeClock clock;
  LatencySummary summary(Config(), clock);
  for (int i = 0; i < 50; ++i) summary.Observe(1000);
  clock.Advance(seconds(30));
  for (int i = 0; i < 50; ++i) summary.Observe(5);
  EXPECT_EQ(summary.Read().values[1], 1000);  // both halves in the window: p90 is old
  clock.Advance(seconds(30));
  const LatencySummary::Snapshot s = summary.Read();
  EXPECT_EQ(s.values[0], 5);  // the old half aged out
  EXPECT_EQ(s.values[1], 5);
  EXPECT_EQ(s.count, 100u);
}

TEST(LatencySummaryTest, LongIdleTimeEmptiesTheWindow) {
  FakeClock clock;
  LatencySummary summary(Config(), clock);
  summary.Observe(7);
  clock.Advance(seconds(3600));
  EXPECT_TRUE(std::isnan(summary.Read().values[0]));
  summary.Observe(8);
  EXPECT_EQ(summary.Read().values[0], 8);
}

}  // namespace
}  // namespace inferd

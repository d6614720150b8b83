#include "core/stats/latency_histogram.h"

#include <gtest/gtest.h>

#include "core/stats/metrics_config.h"

namespace inferd {
namespace {

TEST(LatencyHistogramTest, ObservationsFallIntoTheFirstBucketAtLeastAsLarge) {
  const std::vector<double> bounds = {0.001, 0.01};
  LatencyHistogram histogram(bounds);
  histogram.Observe(1'000'000);          // exactly 1 ms: le="0.001"
  histogram.Observe(5'000'000, 3);       // a batch of three at 5 ms
  histogram.Observe(2'000'000'000);      // past every bound
  const LatencyHistogram::Snapshot s = histogram.Read();
  EXPECT_EQ(s.cumulative, (std::vector<uint64_t>{1, 4, 5}));
  EXPECT_DOUBLE_EQ(s.sum_seconds, 0.001 + 0.015 + 2.0);
}

TEST(LatencyHistogramTest, MetricsConfigReadsBucketsAndTheSaturationWindow) {
  MetricsConfig config;
  EXPECT_EQ(config.latency_buckets.size(), 14u);
  ASSERT_TRUE(ApplyMetricsSetting(&config, "latency_buckets", "0.005,0.05,0.5").ok());
  EXPECT_EQ(config.latency_buckets, (std::vector<double>{0.005, 0.05, 0.5}));
  ASSERT_TRUE(ApplyMetricsSetting(&config, "saturation_window_ms", "2500").ok());
  EXPECT_EQ(config.saturation_window_ms, 2500u);
  for (const char* bad : {"", "0.5,0.1", "0,1", "-1", "1,,2", "x", "inf"}) {
    const Status status = ApplyMetricsSetting(&config, "latency_buckets", bad);
    EXPECT_EQ(status.code(), Status::Code::kInvalidArg) << bad;
  }
  EXPECT_EQ(ApplyMetricsSetting(&config, "saturation_window_ms", "0").code(),
            Status::Code::kInvalidArg);
  EXPECT_EQ(config.latency_buckets, (std::vector<double>{0.005, 0.05, 0.5})) << "unchanged";
}

}  // namespace
}  // namespace inferd

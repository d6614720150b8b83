// --metrics-config settings: Triton's keys, and errors naming what is wrong.
#include "core/stats/metrics_config.h"

#include <gtest/gtest.h>

namespace inferd {
namespace {

TEST(MetricsConfigTest, DefaultsAreTritons) {
  const MetricsConfig c;
  EXPECT_TRUE(c.counter_latencies);
  EXPECT_FALSE(c.summary_latencies);
  EXPECT_EQ(c.interval_ms, 2000u);
  ASSERT_EQ(c.quantiles.size(), 5u);
  EXPECT_EQ(c.quantiles[4].quantile, 0.999);
  EXPECT_EQ(c.quantiles[0].error, 0.05);
}

TEST(MetricsConfigTest, AppliesKnownSettings) {
  MetricsConfig c;
  ASSERT_TRUE(ApplyMetricsSetting(&c, "counter_latencies", "false").ok());
  ASSERT_TRUE(ApplyMetricsSetting(&c, "summary_latencies", "true").ok());
  ASSERT_TRUE(ApplyMetricsSetting(&c, "summary_quantiles", "0.25:0.01,0.75:0.02").ok());
  ASSERT_TRUE(ApplyMetricsSetting(&c, "histogram_latencies", "true").ok());
  EXPECT_FALSE(c.counter_latencies);
  EXPECT_TRUE(c.Summaries());
  EXPECT_TRUE(c.Histograms());
  ASSERT_EQ(c.quantiles.size(), 2u);
  EXPECT_EQ(c.quantiles[1].quantile, 0.75);
  EXPECT_EQ(c.quantiles[1].error, 0.02);
  c.enabled = false;  // --allow-metrics=false turns summaries and CPU sampling off
  EXPECT_FALSE(c.Summaries());
  EXPECT_FALSE(c.CpuSampling());
  EXPECT_FALSE(c.Histograms());
}

TEST(MetricsConfigTest, ErrorsNameTheSettingAndValue) {
  MetricsConfig c;
  Status s = ApplyMetricsSetting(&c, "summary_latency", "true");
  EXPECT_EQ(s.code(), Status::Code::kInvalidArg);
  EXPECT_NE(s.message().find("unknown setting 'summary_latency'"), std::string::npos)
      << s.message();
  s = ApplyMetricsSetting(&c, "counter_latencies", "yes");
  EXPECT_NE(s.message().find("counter_latencies='yes'"), std::string::npos) << s.message();
  for (const char* bad : {"0.5", "0.5:", "1.5:0.01", "0.5:0", "0.5:0.01,", "a:b", ""}) {
    s = ApplyMetricsSetting(&c, "summary_quantiles", bad);
    EXPECT_NE(s.message().find("summary_quantiles='" + std::string(bad) + "'"),
              std::string::npos)
        << bad << ": " << s.message();
  }
  s = ApplyMetricsSetting(&c, "histogram_latencies", "on");
  EXPECT_NE(s.message().find("histogram_latencies='on'"), std::string::npos) << s.message();
  EXPECT_EQ(c.quantiles.size(), 5u);  // nothing bad was applied
}

}  // namespace
}  // namespace inferd

#include "core/stats/custom_metrics.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace inferd {
namespace {

const int kModelA = 0;
const int kModelB = 1;
const void* const a = &kModelA;
const void* const b = &kModelB;

std::string Text(const CustomMetrics& metrics) {
  std::string out;
  metrics.AppendPrometheusText(&out);
  return out;
}

TEST(CustomMetricsTest, CounterRendersHelpTypeAndLabelledSamples) {
  CustomMetrics metrics;
  const uint64_t family =
      metrics.AddFamily(a, MetricKind::kCounter, "requests_seen", "Requests seen").value();
  const uint64_t x =
      metrics.AddMetric(a, family, {{"model", "m"}, {"kind", "x"}}, nullptr).value();
  const uint64_t y = metrics.AddMetric(a, family, {}, nullptr).value();
  ASSERT_TRUE(metrics.Increment(a, x, 2.5).ok());
  ASSERT_TRUE(metrics.Increment(a, x, 1).ok());
  ASSERT_TRUE(metrics.Increment(a, y, 7).ok());
  EXPECT_EQ(Text(metrics),
            "# HELP requests_seen Requests seen\n"
            "# TYPE requests_seen counter\n"
            "requests_seen 7\n"
            "requests_seen{kind=\"x\",model=\"m\"} 3.5\n");
  EXPECT_DOUBLE_EQ(metrics.Value(a, x).value(), 3.5);
}

TEST(CustomMetricsTest, CounterRefusesNegativeIncrementsSetAndObserve) {
  CustomMetrics metrics;
  const uint64_t family = metrics.AddFamily(a, MetricKind::kCounter, "c", "").value();
  const uint64_t m = metrics.AddMetric(a, family, {}, nullptr).value();
  EXPECT_EQ(metrics.Increment(a, m, -1).code(), Status::Code::kInvalidArg);
  EXPECT_EQ(metrics.Set(a, m, 3).code(), Status::Code::kUnsupported);
  EXPECT_EQ(metrics.Observe(a, m, 3).code(), Status::Code::kUnsupported);
  EXPECT_DOUBLE_EQ(metrics.Value(a, m).value(), 0);
}

TEST(CustomMetricsTest, GaugeSetsAndMovesBothWays) {
  CustomMetrics metrics;
  const uint64_t family = metrics.AddFamily(a, MetricKind::kGauge, "queue_depth", "d").value();
  const uint64_t m = metrics.AddMetric(a, family, {{"q", "1"}}, nullptr).value();
  ASSERT_TRUE(metrics.Set(a, m, 10).ok());
  ASSERT_TRUE(metrics.Increment(a, m, -12.5).ok());
  EXPECT_DOUBLE_EQ(metrics.Value(a, m).value(), -2.5);
  EXPECT_NE(Text(metrics).find("# TYPE queue_depth gauge\nqueue_depth{q=\"1\"} -2.5\n"),
            std::string::npos);
}

TEST(CustomMetricsTest, HistogramRendersCumulativeBucketsSumAndCount) {
  CustomMetrics metrics;
  const uint64_t family = metrics.AddFamily(a, MetricKind::kHistogram, "size", "Sizes").value();
  const std::vector<double> buckets{1, 2.5, 10};
  const uint64_t m = metrics.AddMetric(a, family, {{"m", "x"}}, &buckets).value();
  for (double v : {0.5, 1.0, 2.0, 3.0, 11.0}) ASSERT_TRUE(metrics.Observe(a, m, v).ok());
  EXPECT_EQ(Text(metrics),
            "# HELP size Sizes\n"
            "# TYPE size histogram\n"
            "size_bucket{m=\"x\",le=\"1\"} 2\n"
            "size_bucket{m=\"x\",le=\"2.5\"} 3\n"
            "size_bucket{m=\"x\",le=\"10\"} 4\n"
            "size_bucket{m=\"x\",le=\"+Inf\"} 5\n"
            "size_sum{m=\"x\"} 17.5\n"
            "size_count{m=\"x\"} 5\n");
  EXPECT_EQ(metrics.Value(a, m).status().code(), Status::Code::kUnsupported);
  EXPECT_EQ(metrics.Increment(a, m, 1).code(), Status::Code::kUnsupported);
}

TEST(CustomMetricsTest, HistogramBucketsAreRequiredAndStrictlyIncreasing) {
  CustomMetrics metrics;
  const uint64_t h = metrics.AddFamily(a, MetricKind::kHistogram, "h", "").value();
  const uint64_t g = metrics.AddFamily(a, MetricKind::kGauge, "g", "").value();
  const std::vector<double> flat{1, 1}, down{2, 1}, fine{1, 2};
  EXPECT_EQ(metrics.AddMetric(a, h, {}, nullptr).status().code(), Status::Code::kInvalidArg);
  EXPECT_EQ(metrics.AddMetric(a, h, {}, &flat).status().code(), Status::Code::kInvalidArg);
  EXPECT_EQ(metrics.AddMetric(a, h, {}, &down).status().code(), Status::Code::kInvalidArg);
  EXPECT_EQ(metrics.AddMetric(a, g, {}, &fine).status().code(), Status::Code::kInvalidArg);
  EXPECT_EQ(metrics.AddMetric(a, h, {{"le", "1"}}, &fine).status().code(),
            Status::Code::kInvalidArg);
  const std::vector<double> none;
  EXPECT_TRUE(metrics.AddMetric(a, h, {}, &none).ok());  // only +Inf
}

TEST(CustomMetricsTest, NamesFollowPrometheusAndLeaveTheServersOwnAlone) {
  CustomMetrics metrics;
  for (const char* bad : {"", "9lives", "has space", "dash-ed", "__reserved", "nv_inference_count",
                          "inferd_x"}) {
    EXPECT_EQ(metrics.AddFamily(a, MetricKind::kGauge, bad, "").status().code(),
              Status::Code::kInvalidArg)
        << bad;
  }
  const uint64_t f = metrics.AddFamily(a, MetricKind::kGauge, "ns:ok_1", "").value();
  EXPECT_EQ(metrics.AddMetric(a, f, {{"bad-label", "v"}}, nullptr).status().code(),
            Status::Code::kInvalidArg);
  EXPECT_EQ(metrics.AddMetric(a, f, {{"x", "1"}, {"x", "2"}}, nullptr).status().code(),
            Status::Code::kInvalidArg);
  EXPECT_EQ(metrics.FamilyCount(), 1u);
}

TEST(CustomMetricsTest, SameNameSharesTheFamilyOfTheSameKindOnly) {
  CustomMetrics metrics;
  const uint64_t first = metrics.AddFamily(a, MetricKind::kCounter, "shared", "first").value();
  const uint64_t second = metrics.AddFamily(b, MetricKind::kCounter, "shared", "second").value();
  const Status other = metrics.AddFamily(b, MetricKind::kGauge, "shared", "").status();
  EXPECT_EQ(other.code(), Status::Code::kInvalidArg);
  EXPECT_NE(other.message().find("already exists as a counter"), std::string::npos);
  // The same labels are the same metric, whoever asks.
  const uint64_t ma = metrics.AddMetric(a, first, {{"l", "v"}}, nullptr).value();
  const uint64_t mb = metrics.AddMetric(b, second, {{"l", "v"}}, nullptr).value();
  ASSERT_TRUE(metrics.Increment(a, ma, 1).ok());
  ASSERT_TRUE(metrics.Increment(b, mb, 2).ok());
  EXPECT_DOUBLE_EQ(metrics.Value(a, ma).value(), 3);
  EXPECT_NE(Text(metrics).find("# HELP shared first\n"), std::string::npos);
}

TEST(CustomMetricsTest, AnOwnerCannotTouchAnothersHandles) {
  CustomMetrics metrics;
  const uint64_t f = metrics.AddFamily(a, MetricKind::kGauge, "g", "").value();
  const uint64_t m = metrics.AddMetric(a, f, {}, nullptr).value();
  EXPECT_EQ(metrics.Set(b, m, 1).code(), Status::Code::kNotFound);
  EXPECT_EQ(metrics.AddMetric(b, f, {}, nullptr).status().code(), Status::Code::kNotFound);
  EXPECT_EQ(metrics.Remove(b, m).code(), Status::Code::kNotFound);
  EXPECT_EQ(metrics.AddMetric(a, m, {}, nullptr).status().code(), Status::Code::kNotFound);
}

TEST(CustomMetricsTest, MetricsGoWithTheirLastReferenceAndOwner) {
  CustomMetrics metrics;
  const uint64_t fa = metrics.AddFamily(a, MetricKind::kGauge, "g", "").value();
  const uint64_t fb = metrics.AddFamily(b, MetricKind::kGauge, "g", "").value();
  const uint64_t ma = metrics.AddMetric(a, fa, {{"who", "a"}}, nullptr).value();
  ASSERT_TRUE(metrics.AddMetric(b, fb, {{"who", "b"}}, nullptr).ok());
  ASSERT_TRUE(metrics.Remove(a, fa).ok());  // its metric still holds the family
  ASSERT_TRUE(metrics.Set(a, ma, 4).ok());
  metrics.RemoveOwner(a);
  EXPECT_EQ(metrics.Set(a, ma, 1).code(), Status::Code::kNotFound);
  EXPECT_EQ(Text(metrics), "# HELP g \n# TYPE g gauge\ng{who=\"b\"} 0\n");
  metrics.RemoveOwner(b);
  EXPECT_EQ(Text(metrics), "");
  EXPECT_EQ(metrics.FamilyCount(), 0u);
}

TEST(CustomMetricsTest, LabelValuesAndHelpAreEscaped) {
  CustomMetrics metrics;
  const uint64_t f =
      metrics.AddFamily(a, MetricKind::kGauge, "esc", "line\\one\nline \"two\"").value();
  ASSERT_TRUE(metrics.AddMetric(a, f, {{"v", "a\"b\\c\nd"}}, nullptr).ok());
  EXPECT_EQ(Text(metrics),
            "# HELP esc line\\\\one\\nline \"two\"\n"
            "# TYPE esc gauge\n"
            "esc{v=\"a\\\"b\\\\c\\nd\"} 0\n");
}

}  // namespace
}  // namespace inferd

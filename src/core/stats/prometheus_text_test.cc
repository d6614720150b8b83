// Prometheus text: which latency families appear under --metrics-config, the
// summaries' sample lines, and the CPU gauges.
#include "core/stats/prometheus_text.h"

#include <gtest/gtest.h>

#include "core/stats/model_statistics.h"
#include "core/timing/fake_clock.h"

namespace inferd {
namespace {

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The value of the sample line that starts with `series` (name and labels).
double Value(const std::string& text, const std::string& series) {
  const size_t at = text.find(series + " ");
  if (at == std::string::npos || (at > 0 && text[at - 1] != '\n')) return -1;
  return std::stod(text.substr(at + series.size() + 1));
}

TEST(PrometheusTextTest, CounterLatenciesCanBeTurnedOff) {
  ModelStatistics stats(0);
  stats.RecordRequest(true, 5000);
  stats.RecordRateLimiterWait(7000);
  MetricsConfig config;
  std::string text = PrometheusText({{"m", 1, &stats, 0, 0, 0}}, config, nullptr);
  EXPECT_TRUE(Has(text, "nv_inference_request_duration_us{model=\"m\",version=\"1\"} 5\n")) << text;
  EXPECT_TRUE(Has(text, "inferd_rate_limiter_wait_duration_us{model=\"m\",version=\"1\"} 7\n"))
      << text;
  config.counter_latencies = false;
  text = PrometheusText({{"m", 1, &stats, 0, 0, 0}}, config, nullptr);
  for (const char* family :
       {"nv_inference_request_duration_us", "nv_inference_queue_duration_us",
        "nv_inference_compute_input_duration_us", "nv_inference_compute_infer_duration_us",
        "nv_inference_compute_output_duration_us", "inferd_rate_limiter_wait_duration_us"}) {
    EXPECT_FALSE(Has(text, family)) << family;
  }
  EXPECT_TRUE(Has(text, "nv_inference_request_success{model=\"m\",version=\"1\"} 1\n")) << text;
  EXPECT_FALSE(Has(text, "_summary_us")) << text;
  EXPECT_FALSE(Has(text, "nv_cpu_")) << text;
}

TEST(PrometheusTextTest, SummariesWithQuantileLabels) {
  FakeClock clock;
  MetricsConfig config;
  config.summary_latencies = true;
  config.quantiles = {{0.5, 0.05}, {0.99, 0.001}};
  ModelStatistics stats(4, &config, &clock);
  ModelStatistics plain(0);  // a model without summaries shows none
  for (uint64_t us = 1; us <= 100; ++us) {
    stats.RecordQueue(us * 1000);
    stats.RecordRequest(true, us * 1000 + 999);  // whole microseconds, as Triton
  }
  stats.RecordRequest(false, 1'000'000);  // failures are not in the request summary
  stats.RecordExecutionTime(/*request_count=*/2, /*rows=*/2, 10'000, 20'000, 30'000);
  const std::string text =
      PrometheusText({{"m", 3, &stats, 0, 0, 0}, {"p", 1, &plain, 0, 0, 0}}, config, nullptr);
  EXPECT_TRUE(Has(text, "# TYPE nv_inference_request_summary_us summary\n")) << text;
  EXPECT_EQ(Value(text, "nv_inference_request_summary_us_count{model=\"m\",version=\"3\"}"), 100)
      << text;
  EXPECT_EQ(Value(text, "nv_inference_request_summary_us_sum{model=\"m\",version=\"3\"}"), 5050)
      << text;
  EXPECT_NEAR(
      Value(text, "nv_inference_request_summary_us{model=\"m\",version=\"3\",quantile=\"0.5\"}"),
      50, 5 + 1)
      << text;
  EXPECT_NEAR(
      Value(text, "nv_inference_request_summary_us{model=\"m\",version=\"3\",quantile=\"0.99\"}"),
      99, 0.1 + 1)
      << text;
  EXPECT_EQ(Value(text, "nv_inference_queue_summary_us_count{model=\"m\",version=\"3\"}"), 100);
  EXPECT_TRUE(
      Has(text, "nv_inference_compute_infer_summary_us_count{model=\"m\",version=\"3\"} 2\n"));
  EXPECT_TRUE(
      Has(text, "nv_inference_compute_output_summary_us_sum{model=\"m\",version=\"3\"} 60\n"));
  EXPECT_TRUE(Has(text, "nv_inference_compute_input_summary_us{model=\"m\",version=\"3\","
                        "quantile=\"0.5\"} 10\n"))
      << text;
  EXPECT_FALSE(Has(text, "summary_us_count{model=\"p\"")) << text;
}

TEST(PrometheusTextTest, EmptyWindowReadsNaN) {
  FakeClock clock;
  MetricsConfig config;
  config.summary_latencies = true;
  ModelStatistics stats(0, &config, &clock);
  const std::string text = PrometheusText({{"m", 1, &stats, 0, 0, 0}}, config, nullptr);
  EXPECT_TRUE(Has(text, "nv_inference_queue_summary_us{model=\"m\",version=\"1\","
                        "quantile=\"0.999\"} NaN\n"))
      << text;
}

TEST(PrometheusTextTest, FirstResponseHistogramOfDecoupledModelsOnly) {
  FakeClock clock;
  MetricsConfig config;
  config.histogram_latencies = true;
  ModelStatistics decoupled(0, &config, &clock, /*decoupled=*/true);
  ModelStatistics plain(0, &config, &clock, /*decoupled=*/false);
  decoupled.RecordFirstResponse(50'000'000);     // 50 ms
  decoupled.RecordFirstResponse(100'000'000);    // 100 ms: le="100" includes it
  decoupled.RecordFirstResponse(700'000'000);    // 700 ms
  decoupled.RecordFirstResponse(9'000'000'000);  // 9 s
  plain.RecordFirstResponse(1'000'000);
  const std::string text =
      PrometheusText({{"d", 2, &decoupled, 0}, {"p", 1, &plain, 0, 0, 0}}, config, nullptr);
  const std::string name = "nv_inference_first_response_histogram_ms";
  EXPECT_TRUE(Has(text, "# HELP " + name +
                            " Duration from request to first response in milliseconds\n# TYPE " +
                            name + " histogram\n"))
      << text;
  const std::string labels = "model=\"d\",version=\"2\"";
  EXPECT_EQ(Value(text, name + "_bucket{" + labels + ",le=\"100\"}"), 2) << text;
  EXPECT_EQ(Value(text, name + "_bucket{" + labels + ",le=\"500\"}"), 2) << text;
  EXPECT_EQ(Value(text, name + "_bucket{" + labels + ",le=\"2000\"}"), 3) << text;
  EXPECT_EQ(Value(text, name + "_bucket{" + labels + ",le=\"5000\"}"), 3) << text;
  EXPECT_EQ(Value(text, name + "_bucket{" + labels + ",le=\"+Inf\"}"), 4) << text;
  EXPECT_EQ(Value(text, name + "_count{" + labels + "}"), 4) << text;
  EXPECT_EQ(Value(text, name + "_sum{" + labels + "}"), 9850) << text;
  EXPECT_FALSE(Has(text, name + "_bucket{model=\"p\"")) << text;
  config.histogram_latencies = false;
  ModelStatistics off(0, &config, &clock, /*decoupled=*/true);
  EXPECT_FALSE(Has(PrometheusText({{"d", 1, &off, 0}}, config, nullptr), name));
}

TEST(PrometheusTextTest, CpuGaugesWithTritonsNamesAndHelp) {
  CpuMetricsSampler::Values cpu;
  cpu.utilization = 0.25;
  cpu.memory_total_bytes = 1000;
  cpu.memory_used_bytes = 400;
  const std::string text = PrometheusText({}, MetricsConfig(), &cpu);
  EXPECT_TRUE(Has(text, "# HELP nv_cpu_utilization CPU utilization rate [0.0 - 1.0]\n"
                        "# TYPE nv_cpu_utilization gauge\nnv_cpu_utilization 0.25\n"))
      << text;
  EXPECT_TRUE(Has(text, "# HELP nv_cpu_memory_total_bytes CPU total memory (RAM), in bytes\n"
                        "# TYPE nv_cpu_memory_total_bytes gauge\nnv_cpu_memory_total_bytes 1000\n"))
      << text;
  EXPECT_TRUE(Has(text, "# HELP nv_cpu_memory_used_bytes CPU used memory (RAM), in bytes\n"
                        "# TYPE nv_cpu_memory_used_bytes gauge\nnv_cpu_memory_used_bytes 400\n"))
      << text;
}

TEST(PrometheusTextTest, LoadGaugesAndLatencyHistogramsUseTheConfiguredBuckets) {
  FakeClock clock(0);
  MetricsConfig config;
  config.latency_buckets = {0.001, 0.1};
  ModelStatistics stats(0, &config, &clock);
  stats.RecordQueue(500'000);                          // 0.5 ms
  stats.RecordExecutionTime(2, 2, 0, 20'000'000, 0);   // two requests, 20 ms each
  stats.RecordRequest(true, 30'000'000);
  stats.saturation->Begin(0);
  clock.Advance(std::chrono::seconds(1));
  const std::string text = PrometheusText({{"m", 1, &stats, 0, 3, 2}}, config, nullptr);
  const std::string m = "{model=\"m\",version=\"1\"";
  EXPECT_EQ(Value(text, "inferd_inference_requests_in_flight" + m + "}"), 3) << text;
  EXPECT_EQ(Value(text, "inferd_model_saturation" + m + "}"), 0.5) << text;
  EXPECT_EQ(Value(text, "inferd_queue_latency_seconds_bucket" + m + ",le=\"0.001\"}"), 1);
  EXPECT_EQ(Value(text, "inferd_compute_latency_seconds_bucket" + m + ",le=\"0.001\"}"), 0);
  EXPECT_EQ(Value(text, "inferd_compute_latency_seconds_bucket" + m + ",le=\"0.1\"}"), 2);
  EXPECT_EQ(Value(text, "inferd_compute_latency_seconds_count" + m + "}"), 2);
  EXPECT_EQ(Value(text, "inferd_request_latency_seconds_bucket" + m + ",le=\"+Inf\"}"), 1);
  // An ensemble (no instances) has no saturation.
  const std::string ensemble = PrometheusText({{"e", 1, &stats, 0, 0, 0}}, config, nullptr);
  EXPECT_FALSE(Has(ensemble, "inferd_model_saturation{")) << ensemble;
}

}  // namespace
}  // namespace inferd

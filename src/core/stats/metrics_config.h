// What the Prometheus metrics hold, as Triton's --allow-metrics,
// --allow-cpu-metrics, --metrics-interval-ms and --metrics-config set it.
// A value type, constant once the server is created.
#ifndef INFERD_CORE_STATS_METRICS_CONFIG_H_
#define INFERD_CORE_STATS_METRICS_CONFIG_H_

#include <cstdint>
#include <string>
#include <vector>

#include "inferd/base/status.h"

namespace inferd {

// A quantile a summary reports, and the rank error allowed for it (Triton's
// "<quantile>:<error>").
struct QuantileTarget {
  double quantile;
  double error;
};

// Triton's default summary quantiles: 0.5:0.05, 0.9:0.01, 0.95:0.001,
// 0.99:0.001, 0.999:0.001.
std::vector<QuantileTarget> DefaultQuantiles();

// Upper bounds (seconds) of the latency histograms' buckets unless
// latency_buckets says otherwise: 100 µs .. 2.5 s.
const std::vector<double>& DefaultLatencyBuckets();

struct MetricsConfig {
  bool enabled = true;        // --allow-metrics
  bool cpu = true;            // --allow-cpu-metrics
  uint64_t interval_ms = 2000;  // --metrics-interval-ms
  // --metrics-config keys:
  bool counter_latencies = true;    // counter_latencies
  bool summary_latencies = false;   // summary_latencies
  bool histogram_latencies = false;  // histogram_latencies (decoupled models' first response)
  std::vector<QuantileTarget> quantiles = DefaultQuantiles();  // summary_quantiles
  // latency_buckets (inferd's own: Triton sets buckets per model): the
  // request, queue and compute latency histograms' upper bounds, seconds.
  std::vector<double> latency_buckets = DefaultLatencyBuckets();
  // saturation_window_ms (inferd's own): what inferd_model_saturation
  // averages over.
  uint64_t saturation_window_ms = 10000;
  // A summary's quantiles cover the last max_age, kept in age_buckets
  // windows that rotate (prometheus-cpp's defaults: 60 s, 5).
  uint64_t summary_max_age_ns = 60'000'000'000;
  int summary_age_buckets = 5;

  // Whether models keep latency summaries.
  bool Summaries() const { return enabled && summary_latencies; }
  // Whether decoupled models keep the first-response histogram.
  bool Histograms() const { return enabled && histogram_latencies; }
  // Whether the server samples CPU and memory.
  bool CpuSampling() const { return enabled && cpu; }
};

// Applies one --metrics-config "<setting>=<value>": counter_latencies,
// summary_latencies, summary_quantiles, histogram_latencies, latency_buckets
// (comma-separated increasing seconds) or saturation_window_ms.
// InvalidArg names an unknown setting or a bad value.
Status ApplyMetricsSetting(MetricsConfig* config, const std::string& setting,
                           const std::string& value);

}  // namespace inferd

#endif  // INFERD_CORE_STATS_METRICS_CONFIG_H_

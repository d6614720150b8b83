// Renders model statistics, latency summaries and CPU metrics as Prometheus
// text exposition, with Triton's metric names and help texts so existing
// dashboards keep working. Pure function.
#ifndef INFERD_CORE_STATS_PROMETHEUS_TEXT_H_
#define INFERD_CORE_STATS_PROMETHEUS_TEXT_H_

#include <string>
#include <vector>

#include "core/stats/cpu_metrics.h"
#include "core/stats/metrics_config.h"
#include "core/stats/statistics_json.h"

namespace inferd {

// `config` says which latency families appear (counter_latencies; a model's
// summaries appear when it keeps them); `cpu`, when not null, adds the CPU
// gauges.
std::string PrometheusText(const std::vector<NamedStatistics>& models, const MetricsConfig& config,
                           const CpuMetricsSampler::Values* cpu);

// The OpenTelemetry exporter's counters (opentelemetry trace mode only):
// spans sent to the collector, and spans dropped (queue full, collector down
// or refusing).
void AppendSpanCounters(uint64_t exported, uint64_t dropped, std::string* out);

}  // namespace inferd

#endif  // INFERD_CORE_STATS_PROMETHEUS_TEXT_H_

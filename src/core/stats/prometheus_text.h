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

}  // namespace inferd

#endif  // INFERD_CORE_STATS_PROMETHEUS_TEXT_H_

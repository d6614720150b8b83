// The JSON the /dashboard page polls every second (GET /dashboard/data):
// every model the repositories hold with its version, state and reason, and
// for the loaded versions the raw counters and gauges the page plots
// (docs/dashboard.md). Only cumulative counters and instantaneous gauges go
// out: the page takes rates and latency quantiles from the difference of
// two answers, so the server keeps no state per viewer and one answer costs
// what one /v2/models/stats and one /metrics call cost. Thread-safe.
#ifndef INFERD_FRONTENDS_HTTP_DASHBOARD_DASHBOARD_DATA_H_
#define INFERD_FRONTENDS_HTTP_DASHBOARD_DASHBOARD_DATA_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "http/dashboard/process_usage.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::http {

// What one answer is made of, each as the server API gives it.
struct DashboardSources {
  std::string_view index_json;       // INFERD_ServerModelIndex: [{name, version, state, reason}]
  std::string_view statistics_json;  // INFERD_ServerModelStatistics of every model
  std::string_view metrics_text;     // INFERD_ServerMetrics (Prometheus text)
  std::optional<ProcessUsage> process;  // this process; nullopt: unknown
  uint64_t time_ms = 0;                 // when the sources were read (Unix epoch)
  bool repository_api = false;  // load and unload are served (--model-control-mode=explicit)
};

// {"time_ms", "repository_api", "process": {cpu_seconds, resident_bytes} | null,
//  "machine": {cpu_utilization, memory_used_bytes, memory_total_bytes} | null,
//  "latency_bounds_seconds": [...], "models": [{name, version, state, reason,
//  "stats": null | {success, failure, inferences, executions, queue_depth,
//  in_flight, cache_hits, cache_misses, queue_buckets, compute_buckets,
//  batch_executions: {"<size>": executions}}}]}. The buckets are cumulative
// counts per bound, then +Inf, as the latency histograms of /metrics.
// INTERNAL when the index or statistics JSON does not parse.
StatusOr<std::string> DashboardDataJson(const DashboardSources& sources);

// Reads the sources from `server` now and renders them.
StatusOr<std::string> CollectDashboardData(INFERD_Server* server, bool repository_api);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_DASHBOARD_DASHBOARD_DATA_H_

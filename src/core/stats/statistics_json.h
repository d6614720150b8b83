// Renders model statistics as the KServe/Triton statistics extension does
// ({"model_stats": [...]}). Pure functions.
#ifndef INFERD_CORE_STATS_STATISTICS_JSON_H_
#define INFERD_CORE_STATS_STATISTICS_JSON_H_

#include <cstdint>
#include <string>
#include <vector>

namespace inferd {

class ModelStatistics;

// One loaded version's statistics, borrowed for rendering.
struct NamedStatistics {
  std::string name;
  int64_t version;
  const ModelStatistics* stats;
  uint64_t pending;  // requests queued, awaiting execution
  uint64_t inflight;  // requests admitted and not yet released (queued or executing)
  uint32_t instances;  // execution instances (0: an ensemble)
};

std::string StatisticsJson(const std::vector<NamedStatistics>& models);

}  // namespace inferd

#endif  // INFERD_CORE_STATS_STATISTICS_JSON_H_

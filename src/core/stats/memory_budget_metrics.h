// The model memory budget's metric families (--model-memory-budget) as
// Prometheus text: the budget and the bytes used, each model's attributed
// bytes, its cold loads and evictions, and how long requests waited for
// on-demand loads. Pure function over a snapshot the lifecycle takes.
#ifndef INFERD_CORE_STATS_MEMORY_BUDGET_METRICS_H_
#define INFERD_CORE_STATS_MEMORY_BUDGET_METRICS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace inferd {

struct ModelMemoryRow {
  std::string model;
  bool loaded = false;
  uint64_t bytes = 0;  // attributed at its last load (also once evicted: its next estimate)
  uint64_t cold_loads = 0;
  uint64_t evictions = 0;
};

struct MemoryBudgetSnapshot {
  uint64_t budget_bytes = 0;
  uint64_t used_bytes = 0;  // attributed to the loaded models
  uint64_t waits = 0;       // requests that waited for an on-demand load
  uint64_t wait_ns = 0;     // their waits, summed
  uint64_t wait_failures = 0;  // of those, answered with an error (load failed, timed out)
  std::vector<ModelMemoryRow> models;
};

void AppendMemoryBudgetText(const MemoryBudgetSnapshot& snapshot, std::string* text);

}  // namespace inferd

#endif  // INFERD_CORE_STATS_MEMORY_BUDGET_METRICS_H_

#include "core/stats/memory_budget_metrics.h"

#include <string>

namespace inferd {
namespace {

void Family(std::string* out, const char* name, const char* type, const char* help) {
  *out += "# HELP ";
  *out += name;
  *out += ' ';
  *out += help;
  *out += "\n# TYPE ";
  *out += name;
  *out += ' ';
  *out += type;
  *out += '\n';
}

// A family of one sample.
void Scalar(std::string* out, const char* name, const char* type, const char* help,
            uint64_t value) {
  Family(out, name, type, help);
  *out += name;
  *out += ' ' + std::to_string(value) + '\n';
}

// One sample per model of `field`; only the loaded ones' when `loaded_only`.
void PerModel(std::string* out, const MemoryBudgetSnapshot& snapshot, const char* name,
              const char* type, const char* help, uint64_t ModelMemoryRow::*field,
              bool loaded_only) {
  Family(out, name, type, help);
  for (const ModelMemoryRow& row : snapshot.models) {
    if (loaded_only && !row.loaded) continue;
    *out += name;
    *out += "{model=\"" + row.model + "\"} " + std::to_string(row.*field) + '\n';
  }
}

}  // namespace

void AppendMemoryBudgetText(const MemoryBudgetSnapshot& s, std::string* text) {
  std::string& out = *text;
  Scalar(&out, "inferd_model_memory_budget_bytes", "gauge",
         "Bytes the loaded models may hold (--model-memory-budget)", s.budget_bytes);
  Scalar(&out, "inferd_model_memory_used_bytes", "gauge", "Bytes attributed to the loaded models",
         s.used_bytes);
  PerModel(&out, s, "inferd_model_memory_bytes", "gauge",
           "Resident bytes attributed to a loaded model at its load (process and stub RSS delta)",
           &ModelMemoryRow::bytes, true);
  PerModel(&out, s, "inferd_model_cold_loads_total", "counter",
           "Loads of a model on demand (a request found it not loaded)",
           &ModelMemoryRow::cold_loads, false);
  PerModel(&out, s, "inferd_model_evictions_total", "counter",
           "Unloads of a model to make room within the memory budget",
           &ModelMemoryRow::evictions, false);
  Scalar(&out, "inferd_model_load_waits_total", "counter",
         "Requests that waited for their model to load on demand", s.waits);
  Scalar(&out, "inferd_model_load_wait_failures_total", "counter",
         "Requests that waited for an on-demand load and were answered with an error",
         s.wait_failures);
  Scalar(&out, "inferd_model_load_wait_duration_us", "counter",
         "Cumulative microseconds requests waited for on-demand loads", s.wait_ns / 1000);
}

}  // namespace inferd

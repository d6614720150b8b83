#include "generation_stats.h"

#include "inferd/backend_metrics.h"

namespace inferd::llamacpp {
namespace {

constexpr double kLatencyBuckets[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                      0.25,  0.5,    1.0,   2.5,  5.0,   10.0};
constexpr uint32_t kLatencyBucketCount = sizeof kLatencyBuckets / sizeof kLatencyBuckets[0];

}  // namespace

GenerationStats::GenerationStats(INFERD_Model* model) : model_(model) {
  const char* name = "";
  uint64_t version = 0;
  INFERD_ErrorDelete(INFERD_ModelName(model, &name));
  INFERD_ErrorDelete(INFERD_ModelVersion(model, &version));
  name_ = name;
  version_ = std::to_string(version);
  struct Spec {
    uint64_t* metric;
    INFERD_MetricKind kind;
    const char* name;
    const char* help;
  };
  const Spec specs[] = {
      {&ttft_, INFERD_METRIC_KIND_HISTOGRAM, "llamacpp_time_to_first_token_seconds",
       "Seconds from the backend receiving a request to its first generated token"},
      {&itl_, INFERD_METRIC_KIND_HISTOGRAM, "llamacpp_inter_token_latency_seconds",
       "Seconds between two generated tokens of one request"},
      {&prompt_tokens_, INFERD_METRIC_KIND_COUNTER, "llamacpp_prompt_tokens_total",
       "Prompt tokens processed"},
      {&generated_tokens_, INFERD_METRIC_KIND_COUNTER, "llamacpp_generated_tokens_total",
       "Tokens generated"},
      {&generation_seconds_, INFERD_METRIC_KIND_COUNTER, "llamacpp_generation_seconds_total",
       "Seconds requests spent generating, first token to last (tokens/s per request = "
       "generated_tokens_total / generation_seconds_total)"},
      {&kv_used_, INFERD_METRIC_KIND_GAUGE, "llamacpp_kv_cache_used_cells",
       "KV cache cells holding tokens of running sequences"},
      {&kv_total_, INFERD_METRIC_KIND_GAUGE, "llamacpp_kv_cache_cells", "KV cache cells"},
      {&running_, INFERD_METRIC_KIND_GAUGE, "llamacpp_sequences_running",
       "Sequences in the decode loop"},
      {&queued_, INFERD_METRIC_KIND_GAUGE, "llamacpp_sequences_queued",
       "Sequences waiting for a free slot"},
  };
  for (const Spec& spec : specs) {
    uint64_t family = 0;
    if (INFERD_Error* err =
            INFERD_ModelMetricFamilyNew(model, spec.kind, spec.name, spec.help, &family)) {
      INFERD_ErrorDelete(err);
      continue;
    }
    const bool histogram = spec.kind == INFERD_METRIC_KIND_HISTOGRAM;
    *spec.metric = Metric(family, histogram, kLatencyBuckets, kLatencyBucketCount);
  }
}

uint64_t GenerationStats::Metric(uint64_t family, bool histogram, const double* buckets,
                                 uint32_t count) {
  const char* names[] = {"model", "version"};
  const char* values[] = {name_.c_str(), version_.c_str()};
  uint64_t metric = 0;
  if (INFERD_Error* err = INFERD_ModelMetricNew(model_, family, names, values, 2,
                                                histogram ? buckets : nullptr,
                                                histogram ? count : 0, &metric)) {
    INFERD_ErrorDelete(err);
    return 0;
  }
  return metric;
}

void GenerationStats::Observe(uint64_t metric, double value) {
  if (metric) INFERD_ErrorDelete(INFERD_ModelMetricObserve(model_, metric, value));
}
void GenerationStats::Add(uint64_t metric, double value) {
  if (metric) INFERD_ErrorDelete(INFERD_ModelMetricIncrement(model_, metric, value));
}
void GenerationStats::Set(uint64_t metric, double value) {
  if (metric) INFERD_ErrorDelete(INFERD_ModelMetricSet(model_, metric, value));
}

void GenerationStats::FirstToken(double seconds) { Observe(ttft_, seconds); }
void GenerationStats::NextToken(double seconds) { Observe(itl_, seconds); }
void GenerationStats::PromptTokens(uint64_t count) { Add(prompt_tokens_, static_cast<double>(count)); }
void GenerationStats::SequenceEnded(uint64_t tokens, double seconds) {
  Add(generated_tokens_, static_cast<double>(tokens));
  Add(generation_seconds_, seconds);
}
void GenerationStats::KvCache(double used, double total) {
  Set(kv_used_, used);
  Set(kv_total_, total);
}
void GenerationStats::Sequences(double running, double queued) {
  Set(running_, running);
  Set(queued_, queued);
}

}  // namespace inferd::llamacpp

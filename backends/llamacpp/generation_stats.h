// The llamacpp backend's per-token statistics, reported as the model's
// custom metrics (include/inferd/backend_metrics.h) on the metrics endpoint
// beside the server's own: histograms of time to first token and inter-token
// latency, counters of prompt and generated tokens and of generation time
// (tokens/s = rate of tokens over rate of seconds), gauges of the KV cache
// cells in use and of sequences running and queued. Labelled by model and
// version. A metric that cannot be created is left out (the model still
// serves). Thread-safe (the server's metric calls are).
#ifndef INFERD_BACKENDS_LLAMACPP_GENERATION_STATS_H_
#define INFERD_BACKENDS_LLAMACPP_GENERATION_STATS_H_

#include <cstdint>
#include <string>

#include "inferd/backend.h"

namespace inferd::llamacpp {

class GenerationStats {
 public:
  // Creates the model's metrics; `model` outlives this object.
  explicit GenerationStats(INFERD_Model* model);

  void FirstToken(double seconds_since_queued);
  void NextToken(double seconds_since_previous);
  void PromptTokens(uint64_t count);
  // A sequence ended after `tokens` generated tokens in `seconds` (from its first token).
  void SequenceEnded(uint64_t tokens, double seconds);
  void KvCache(double used_cells, double total_cells);
  void Sequences(double running, double queued);

 private:
  uint64_t Metric(uint64_t family, bool histogram, const double* buckets, uint32_t count);
  void Observe(uint64_t metric, double value);
  void Add(uint64_t metric, double value);
  void Set(uint64_t metric, double value);

  INFERD_Model* model_;
  std::string name_;
  std::string version_;
  uint64_t ttft_ = 0, itl_ = 0, prompt_tokens_ = 0, generated_tokens_ = 0,
           generation_seconds_ = 0, kv_used_ = 0, kv_total_ = 0, running_ = 0, queued_ = 0;
};

}  // namespace inferd::llamacpp

#endif  // INFERD_BACKENDS_LLAMACPP_GENERATION_STATS_H_

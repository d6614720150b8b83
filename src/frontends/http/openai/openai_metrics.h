// The OpenAI API's metrics, per model: choices by finish reason, prompt and
// completion tokens, time to first token and output tokens per second
// (histograms). The HTTP port's sessions record; the metrics port appends
// the text to /metrics after the server's. Both hold the one object main
// owns. Thread-safe.
#ifndef INFERD_FRONTENDS_HTTP_OPENAI_OPENAI_METRICS_H_
#define INFERD_FRONTENDS_HTTP_OPENAI_OPENAI_METRICS_H_

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inferd/base/mutex.h"

namespace inferd::http::openai {

// A Prometheus histogram with fixed bucket bounds.
struct Histogram {
  std::vector<uint64_t> counts;  // one per bound, not cumulative
  uint64_t count = 0;
  double sum = 0;
};

// What one finished request adds.
struct RequestRecord {
  std::string model;
  std::vector<std::string> finish_reasons;  // one per choice
  int64_t prompt_tokens = 0;
  int64_t completion_tokens = 0;
  std::optional<double> time_to_first_token_s;  // none: no text came
  std::optional<double> generation_s;           // first token to the end
};

class OpenAiMetrics {
 public:
  void Record(const RequestRecord& record);
  // Prometheus text exposition (0.0.4); empty before the first request.
  std::string Render() const;

 private:
  struct ModelStats {
    std::map<std::string, uint64_t> finish_reasons;
    uint64_t prompt_tokens = 0;
    uint64_t completion_tokens = 0;
    Histogram time_to_first_token;
    Histogram tokens_per_second;
  };

  mutable Mutex mutex_;
  std::map<std::string, ModelStats> models_ GUARDED_BY(mutex_);
};

}  // namespace inferd::http::openai

#endif  // INFERD_FRONTENDS_HTTP_OPENAI_OPENAI_METRICS_H_

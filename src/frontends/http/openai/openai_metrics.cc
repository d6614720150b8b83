// The OpenAI API's Prometheus metrics.
#include "http/openai/openai_metrics.h"

#include <algorithm>
#include <cstdio>
#include <span>

namespace inferd::http::openai {
namespace {

constexpr double kFirstTokenBounds[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                        1,     2.5,  5,     10,   30,  60};
constexpr double kTokensPerSecondBounds[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000};

void Observe(std::span<const double> bounds, double value, Histogram* histogram) {
  if (histogram->counts.empty()) histogram->counts.resize(bounds.size());
  const auto bucket = std::lower_bound(bounds.begin(), bounds.end(), value) - bounds.begin();
  if (static_cast<size_t>(bucket) < bounds.size()) ++histogram->counts[bucket];
  ++histogram->count;
  histogram->sum += value;
}

std::string Label(std::string_view model) {
  std::string label = "model=\"";
  for (const char c : model) {
    if (c == '"' || c == '\\') label.push_back('\\');
    if (c == '\n') {
      label.append("\\n");
      continue;
    }
    label.push_back(c);
  }
  return label + "\"";
}

void Family(std::string_view name, std::string_view type, std::string_view help,
            std::string* out) {
  out->append("# HELP ").append(name).append(" ").append(help).append("\n");
  out->append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void RenderHistogram(std::string_view name, const std::string& label,
                     std::span<const double> bounds, const Histogram& histogram,
                     std::string* out) {
  uint64_t cumulative = 0;
  for (size_t i = 0; i < bounds.size(); ++i) {
    cumulative += histogram.counts.empty() ? 0 : histogram.counts[i];
    char bound[32];
    std::snprintf(bound, sizeof bound, "%g", bounds[i]);
    out->append(name).append("_bucket{").append(label).append(",le=\"").append(bound);
    out->append("\"} ").append(std::to_string(cumulative)).append("\n");
  }
  out->append(name).append("_bucket{").append(label).append(",le=\"+Inf\"} ");
  out->append(std::to_string(histogram.count)).append("\n");
  char sum[32];
  std::snprintf(sum, sizeof sum, "%.9g", histogram.sum);
  out->append(name).append("_sum{").append(label).append("} ").append(sum).append("\n");
  out->append(name).append("_count{").append(label).append("} ");
  out->append(std::to_string(histogram.count)).append("\n");
}

}  // namespace

void OpenAiMetrics::Record(const RequestRecord& record) {
  MutexLock lock(&mutex_);
  ModelStats& stats = models_[record.model];
  for (const std::string& reason : record.finish_reasons) ++stats.finish_reasons[reason];
  stats.prompt_tokens += static_cast<uint64_t>(std::max<int64_t>(record.prompt_tokens, 0));
  stats.completion_tokens += static_cast<uint64_t>(std::max<int64_t>(record.completion_tokens, 0));
  if (record.time_to_first_token_s) {
    Observe(kFirstTokenBounds, *record.time_to_first_token_s, &stats.time_to_first_token);
  }
  if (record.generation_s && *record.generation_s > 0 && record.completion_tokens > 0) {
    Observe(kTokensPerSecondBounds,
            static_cast<double>(record.completion_tokens) / *record.generation_s,
            &stats.tokens_per_second);
  }
}

std::string OpenAiMetrics::Render() const {
  MutexLock lock(&mutex_);
  std::string out;
  if (models_.empty()) return out;
  Family("inferd_openai_requests_total", "counter",
         "OpenAI API choices ended, by finish reason (stop, length, error, cancelled)", &out);
  for (const auto& [model, stats] : models_) {
    for (const auto& [reason, count] : stats.finish_reasons) {
      out.append("inferd_openai_requests_total{").append(Label(model)).append(",finish_reason=\"");
      out.append(reason).append("\"} ").append(std::to_string(count)).append("\n");
    }
  }
  Family("inferd_openai_prompt_tokens_total", "counter", "Prompt tokens (reported or estimated)",
         &out);
  for (const auto& [model, stats] : models_) {
    out.append("inferd_openai_prompt_tokens_total{").append(Label(model)).append("} ");
    out.append(std::to_string(stats.prompt_tokens)).append("\n");
  }
  Family("inferd_openai_completion_tokens_total", "counter",
         "Completion tokens (reported or estimated)", &out);
  for (const auto& [model, stats] : models_) {
    out.append("inferd_openai_completion_tokens_total{").append(Label(model)).append("} ");
    out.append(std::to_string(stats.completion_tokens)).append("\n");
  }
  Family("inferd_openai_time_to_first_token_seconds", "histogram",
         "From a request's arrival to its first generated text", &out);
  for (const auto& [model, stats] : models_) {
    RenderHistogram("inferd_openai_time_to_first_token_seconds", Label(model), kFirstTokenBounds,
                    stats.time_to_first_token, &out);
  }
  Family("inferd_openai_output_tokens_per_second", "histogram",
         "Completion tokens per second of generation, per request", &out);
  for (const auto& [model, stats] : models_) {
    RenderHistogram("inferd_openai_output_tokens_per_second", Label(model),
                    kTokensPerSecondBounds, stats.tokens_per_second, &out);
  }
  return out;
}

}  // namespace inferd::http::openai

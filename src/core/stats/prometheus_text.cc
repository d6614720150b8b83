#include "core/stats/prometheus_text.h"

#include <cmath>
#include <cstdio>

#include "core/stats/model_statistics.h"

namespace inferd {
namespace {

uint64_t Load(const std::atomic<uint64_t>& value) {
  return value.load(std::memory_order_relaxed);
}

void Header(std::string& out, const char* name, const char* type, const char* help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

// A sample value as Prometheus reads it (NaN for an empty summary window).
std::string Number(double value) {
  if (std::isnan(value)) return "NaN";
  char text[40];
  std::snprintf(text, sizeof(text), "%.17g", value);
  return text;
}

// Appends one metric family: its HELP and TYPE lines, then one sample per model.
template <typename Value>
void Family(std::string& out, const std::vector<NamedStatistics>& models, const char* name,
            const char* type, const char* help, Value&& value) {
  Header(out, name, type, help);
  for (const NamedStatistics& model : models) {
    out += name;
    out += "{model=\"" + model.name + "\",version=\"" + std::to_string(model.version) + "\"} ";
    out += std::to_string(value(model));
    out += '\n';
  }
}

std::string Labels(const NamedStatistics& model) {
  return "model=\"" + model.name + "\",version=\"" + std::to_string(model.version) + "\"";
}

// One histogram family, a histogram per model.
void HistogramFamily(std::string& out, const std::vector<NamedStatistics>& models,
                     const std::string& name, const char* help,
                     LatencyHistogram ModelStatistics::*member) {
  Header(out, name.c_str(), "histogram", help);
  char bound[32];
  for (const NamedStatistics& model : models) {
    const LatencyHistogram& histogram = model.stats->*member;
    const LatencyHistogram::Snapshot s = histogram.Read();
    const std::string labels = Labels(model);
    for (size_t i = 0; i < histogram.bounds().size(); ++i) {
      std::snprintf(bound, sizeof(bound), "%g", histogram.bounds()[i]);
      out += name + "_bucket{" + labels + ",le=\"" + bound + "\"} " +
             std::to_string(s.cumulative[i]) + "\n";
    }
    out += name + "_bucket{" + labels + ",le=\"+Inf\"} " + std::to_string(s.cumulative.back()) +
           "\n";
    std::snprintf(bound, sizeof(bound), "%.9f", s.sum_seconds);
    out += name + "_sum{" + labels + "} " + bound + "\n";
    out += name + "_count{" + labels + "} " + std::to_string(s.cumulative.back()) + "\n";
  }
}

void LatencyHistograms(std::string& out, const std::vector<NamedStatistics>& models) {
  HistogramFamily(out, models, "inferd_request_latency_seconds",
                  "Time from queueing to the final response.", &ModelStatistics::request_latency);
  HistogramFamily(out, models, "inferd_queue_latency_seconds",
                  "Time requests waited in the queue before execution.",
                  &ModelStatistics::queue_latency);
  HistogramFamily(out, models, "inferd_compute_latency_seconds",
                  "Compute time (input, infer, output) of each request's execution.",
                  &ModelStatistics::compute_latency);
}

// The gauges load balancers and autoscalers act on.
void LoadGauges(std::string& out, const std::vector<NamedStatistics>& models) {
  Family(out, models, "inferd_inference_requests_in_flight", "gauge",
         "Requests admitted and not yet released (queued or executing)",
         [](const NamedStatistics& m) { return m.inflight; });
  std::vector<NamedStatistics> executing;
  for (const NamedStatistics& model : models) {
    if (model.instances > 0 && model.stats->saturation) executing.push_back(model);
  }
  if (executing.empty()) return;
  Header(out, "inferd_model_saturation", "gauge",
         "Busy share of the model's instances over the saturation window [0.0 - 1.0]");
  for (const NamedStatistics& model : executing) {
    out += "inferd_model_saturation{" + Labels(model) + "} " +
           Number(model.stats->saturation->Read(model.instances)) + "\n";
  }
}

// Refusals by reason; a model's reason appears once it refused a request.
void RejectionFamily(std::string& out, const std::vector<NamedStatistics>& models) {
  Header(out, "inferd_admission_rejected_total", "counter",
         "Client requests admission control refused, by reason.");
  for (const NamedStatistics& model : models) {
    for (size_t i = 0; i < kRejectReasons; ++i) {
      const auto reason = static_cast<RejectReason>(i);
      const uint64_t count = model.stats->rejected.Read(reason);
      if (count == 0) continue;
      out += "inferd_admission_rejected_total{" + Labels(model) + ",reason=\"" +
             RejectReasonName(reason) + "\"} " + std::to_string(count) + "\n";
    }
  }
}

// One summary family: per model with the summary `get` returns (null: none),
// a sample per quantile, then _count and _sum.
template <typename Get>
void SummaryFamilyOf(std::string& out, const std::vector<NamedStatistics>& models,
                     const char* name, const char* help, Get&& get) {
  Header(out, name, "summary", help);
  for (const NamedStatistics& model : models) {
    LatencySummary* summary = get(*model.stats);
    if (summary == nullptr) continue;
    const LatencySummary::Snapshot s = summary->Read();
    const std::string labels = Labels(model);
    out += std::string(name) + "_count{" + labels + "} " + std::to_string(s.count) + "\n";
    out += std::string(name) + "_sum{" + labels + "} " + Number(s.sum) + "\n";
    char quantile[32];
    for (size_t i = 0; i < s.targets.size(); ++i) {
      std::snprintf(quantile, sizeof(quantile), "%g", s.targets[i].quantile);
      out += std::string(name) + "{" + labels + ",quantile=\"" + quantile + "\"} " +
             Number(s.values[i]) + "\n";
    }
  }
}

void SummaryFamily(std::string& out, const std::vector<NamedStatistics>& models, const char* name,
                   const char* help, LatencySummary LatencySummaries::*member) {
  SummaryFamilyOf(out, models, name, help, [member](const ModelStatistics& s) {
    return s.summaries ? &(s.summaries.get()->*member) : nullptr;
  });
}

void Summaries(std::string& out, const std::vector<NamedStatistics>& models) {
  bool any = false;
  for (const NamedStatistics& model : models) any = any || model.stats->summaries != nullptr;
  if (!any) return;
  SummaryFamily(out, models, "nv_inference_request_summary_us",
                "Summary of inference request duration in microseconds (includes cached "
                "requests)",
                &LatencySummaries::request);
  SummaryFamily(out, models, "nv_inference_queue_summary_us",
                "Summary of inference queuing duration in microseconds (includes cached requests)",
                &LatencySummaries::queue);
  SummaryFamily(out, models, "nv_inference_compute_input_summary_us",
                "Summary of compute input duration in microseconds (does not include cached "
                "requests)",
                &LatencySummaries::compute_input);
  SummaryFamily(out, models, "nv_inference_compute_infer_summary_us",
                "Summary of compute inference duration in microseconds (does not include cached "
                "requests)",
                &LatencySummaries::compute_infer);
  SummaryFamily(out, models, "nv_inference_compute_output_summary_us",
                "Summary of inference compute output duration in microseconds (does not include "
                "cached requests)",
                &LatencySummaries::compute_output);
}

void FirstResponseHistogramFamily(std::string& out, const std::vector<NamedStatistics>& models) {
  bool any = false;
  for (const NamedStatistics& model : models) any = any || model.stats->first_response != nullptr;
  if (!any) return;
  const std::string name = "nv_inference_first_response_histogram_ms";
  Header(out, name.c_str(), "histogram", "Duration from request to first response in milliseconds");
  char bound[32];
  for (const NamedStatistics& model : models) {
    const FirstResponseHistogram* h = model.stats->first_response.get();
    if (h == nullptr) continue;
    const std::string labels = Labels(model);
    uint64_t cumulative = 0;
    for (size_t i = 0; i < kFirstResponseBucketsMs.size(); ++i) {
      cumulative += Load(h->buckets[i]);
      std::snprintf(bound, sizeof(bound), "%g", kFirstResponseBucketsMs[i]);
      out += name + "_bucket{" + labels + ",le=\"" + bound + "\"} " + std::to_string(cumulative) +
             "\n";
    }
    cumulative += Load(h->buckets.back());
    out += name + "_bucket{" + labels + ",le=\"+Inf\"} " + std::to_string(cumulative) + "\n";
    out += name + "_sum{" + labels + "} " + Number(static_cast<double>(Load(h->sum_ns)) / 1e6) +
           "\n";
    out += name + "_count{" + labels + "} " + std::to_string(cumulative) + "\n";
  }
}

// Triton's per-model response cache metrics, for the models that use the cache.
void CacheFamilies(std::string& out, const std::vector<NamedStatistics>& models) {
  std::vector<NamedStatistics> cached;
  for (const NamedStatistics& model : models) {
    if (model.stats->cache_enabled) cached.push_back(model);
  }
  if (cached.empty()) return;
  Family(out, cached, "nv_cache_num_hits_per_model", "counter",
         "Number of cache hits per model",
         [](const NamedStatistics& m) { return Load(m.stats->cache_hit.count); });
  Family(out, cached, "nv_cache_num_misses_per_model", "counter",
         "Number of cache misses per model",
         [](const NamedStatistics& m) { return Load(m.stats->cache_miss.count); });
  Family(out, cached, "nv_cache_hit_duration_per_model", "counter",
         "Total cache hit duration per model, in microseconds",
         [](const NamedStatistics& m) { return Load(m.stats->cache_hit.ns) / 1000; });
  Family(out, cached, "nv_cache_miss_duration_per_model", "counter",
         "Total cache miss (insert + lookup) duration per model, in microseconds",
         [](const NamedStatistics& m) { return Load(m.stats->cache_miss.ns) / 1000; });
  bool summaries = false;
  for (const NamedStatistics& model : cached) summaries = summaries || model.stats->cache_hit_summary;
  if (!summaries) return;
  SummaryFamilyOf(out, cached, "nv_cache_hit_summary_us",
                  "Summary of response cache hit duration in microseconds",
                  [](const ModelStatistics& s) { return s.cache_hit_summary.get(); });
  SummaryFamilyOf(out, cached, "nv_cache_miss_summary_us",
                  "Summary of response cache miss duration in microseconds",
                  [](const ModelStatistics& s) { return s.cache_miss_summary.get(); });
}

void CpuGauges(std::string& out, const CpuMetricsSampler::Values& cpu) {
  Header(out, "nv_cpu_utilization", "gauge", "CPU utilization rate [0.0 - 1.0]");
  out += "nv_cpu_utilization " + Number(cpu.utilization) + "\n";
  Header(out, "nv_cpu_memory_total_bytes", "gauge", "CPU total memory (RAM), in bytes");
  out += "nv_cpu_memory_total_bytes " + std::to_string(cpu.memory_total_bytes) + "\n";
  Header(out, "nv_cpu_memory_used_bytes", "gauge", "CPU used memory (RAM), in bytes");
  out += "nv_cpu_memory_used_bytes " + std::to_string(cpu.memory_used_bytes) + "\n";
}

}  // namespace

std::string PrometheusText(const std::vector<NamedStatistics>& models, const MetricsConfig& config,
                           const CpuMetricsSampler::Values* cpu) {
  std::string out;
  auto us = [](const DurationStat& d) { return Load(d.ns) / 1000; };
  Family(out, models, "nv_inference_request_success", "counter",
         "Number of successful inference requests, all batch sizes.",
         [](const NamedStatistics& m) { return Load(m.stats->success.count); });
  Family(out, models, "nv_inference_request_failure", "counter",
         "Number of failed inference requests, all batch sizes.",
         [](const NamedStatistics& m) { return Load(m.stats->fail.count); });
  Family(out, models, "nv_inference_count", "counter",
         "Number of inferences performed (rows; a batch of n counts n).",
         [](const NamedStatistics& m) { return Load(m.stats->inference_count); });
  Family(out, models, "nv_inference_exec_count", "counter",
         "Number of model executions performed (a batch counts once).",
         [](const NamedStatistics& m) { return Load(m.stats->execution_count); });
  if (config.counter_latencies) {
    Family(out, models, "nv_inference_request_duration_us", "counter",
           "Cumulative end-to-end inference request duration in microseconds.",
           [&](const NamedStatistics& m) { return us(m.stats->success) + us(m.stats->fail); });
    Family(out, models, "nv_inference_queue_duration_us", "counter",
           "Cumulative time requests spent queued, in microseconds.",
           [&](const NamedStatistics& m) { return us(m.stats->queue); });
    Family(out, models, "inferd_rate_limiter_wait_duration_us", "counter",
           "Cumulative time executions waited for rate limiter resources, in microseconds.",
           [&](const NamedStatistics& m) { return us(m.stats->rate_limiter_wait); });
    Family(out, models, "nv_inference_compute_input_duration_us", "counter",
           "Cumulative compute input duration in microseconds.",
           [&](const NamedStatistics& m) { return us(m.stats->compute_input); });
    Family(out, models, "nv_inference_compute_infer_duration_us", "counter",
           "Cumulative compute inference duration in microseconds.",
           [&](const NamedStatistics& m) { return us(m.stats->compute_infer); });
    Family(out, models, "nv_inference_compute_output_duration_us", "counter",
           "Cumulative compute output duration in microseconds.",
           [&](const NamedStatistics& m) { return us(m.stats->compute_output); });
  }
  Family(out, models, "nv_inference_pending_request_count", "gauge",
         "Instantaneous number of requests awaiting execution.",
         [](const NamedStatistics& m) { return m.pending; });
  LoadGauges(out, models);
  RejectionFamily(out, models);
  CacheFamilies(out, models);
  Summaries(out, models);
  FirstResponseHistogramFamily(out, models);
  LatencyHistograms(out, models);
  if (cpu != nullptr) CpuGauges(out, *cpu);
  return out;
}

void AppendSpanCounters(uint64_t exported, uint64_t dropped, std::string* out) {
  Header(*out, "inferd_trace_spans_exported_total", "counter",
         "Spans the OpenTelemetry collector accepted");
  *out += "inferd_trace_spans_exported_total " + std::to_string(exported) + "\n";
  Header(*out, "inferd_trace_spans_dropped_total", "counter",
         "Spans dropped because the export queue was full or the collector did not take them");
  *out += "inferd_trace_spans_dropped_total " + std::to_string(dropped) + "\n";
}

}  // namespace inferd

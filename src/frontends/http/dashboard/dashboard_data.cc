#include "http/dashboard/dashboard_data.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <utility>
#include <vector>

#include "common/server_error.h"
#include "http/dashboard/prometheus_samples.h"

namespace inferd::http {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;
using ModelKey = std::pair<std::string, std::string>;  // name, version

// The gauges and histograms of one model version, from the metrics text.
struct ModelMetrics {
  double queue_depth = 0;
  double in_flight = 0;
  std::vector<double> queue_buckets;    // cumulative, the last +Inf
  std::vector<double> compute_buckets;  // cumulative, the last +Inf
};

// What the dashboard takes from the metrics text.
struct MetricsSnapshot {
  std::map<ModelKey, ModelMetrics> models;
  std::vector<double> bounds;  // the latency histograms' finite upper bounds
  std::optional<double> cpu_utilization, memory_used, memory_total;
};

constexpr std::string_view kPending = "nv_inference_pending_request_count";
constexpr std::string_view kInFlight = "inferd_inference_requests_in_flight";
constexpr std::string_view kQueueBucket = "inferd_queue_latency_seconds_bucket";
constexpr std::string_view kComputeBucket = "inferd_compute_latency_seconds_bucket";
constexpr std::string_view kCpu = "nv_cpu_utilization";
constexpr std::string_view kMemoryUsed = "nv_cpu_memory_used_bytes";
constexpr std::string_view kMemoryTotal = "nv_cpu_memory_total_bytes";

bool Wanted(std::string_view name) {
  return name == kPending || name == kInFlight || name == kQueueBucket ||
         name == kComputeBucket || name == kCpu || name == kMemoryUsed || name == kMemoryTotal;
}

// Buckets come in order of their bounds, the same for every model (a server
// setting): the first model with more buckets than bounds known adds its bound.
void AddBucket(const PrometheusSample& sample, ModelMetrics& model, MetricsSnapshot& snapshot) {
  const bool queue = sample.name == kQueueBucket;
  std::vector<double>& buckets = queue ? model.queue_buckets : model.compute_buckets;
  buckets.push_back(sample.value);
  const std::string le(sample.Label("le"));
  if (queue && le != "+Inf" && buckets.size() > snapshot.bounds.size()) {
    snapshot.bounds.push_back(std::strtod(le.c_str(), nullptr));
  }
}

void AddSample(const PrometheusSample& sample, MetricsSnapshot& snapshot) {
  if (sample.name == kCpu) return void(snapshot.cpu_utilization = sample.value);
  if (sample.name == kMemoryUsed) return void(snapshot.memory_used = sample.value);
  if (sample.name == kMemoryTotal) return void(snapshot.memory_total = sample.value);
  ModelMetrics& model = snapshot.models[ModelKey(sample.Label("model"), sample.Label("version"))];
  if (sample.name == kPending) {
    model.queue_depth = sample.value;
  } else if (sample.name == kInFlight) {
    model.in_flight = sample.value;
  } else {
    AddBucket(sample, model, snapshot);
  }
}

MetricsSnapshot ReadMetrics(std::string_view text) {
  MetricsSnapshot snapshot;
  ForEachPrometheusSample(text, Wanted, [&](const PrometheusSample& s) { AddSample(s, snapshot); });
  return snapshot;
}

std::string Text(const rapidjson::Value& object, const char* key) {
  if (!object.IsObject()) return {};
  const auto found = object.FindMember(key);
  if (found == object.MemberEnd() || !found->value.IsString()) return {};
  return {found->value.GetString(), found->value.GetStringLength()};
}

uint64_t Number(const rapidjson::Value& object, const char* key) {
  if (!object.IsObject()) return 0;
  const auto found = object.FindMember(key);
  if (found == object.MemberEnd() || !found->value.IsUint64()) return 0;
  return found->value.GetUint64();
}

// inference_stats.<key>.count
uint64_t Count(const rapidjson::Value& stats, const char* key) {
  const auto inference = stats.FindMember("inference_stats");
  if (inference == stats.MemberEnd() || !inference->value.IsObject()) return 0;
  const auto found = inference->value.FindMember(key);
  if (found == inference->value.MemberEnd() || !found->value.IsObject()) return 0;
  return Number(found->value, "count");
}

void WriteNumbers(Writer& w, const char* key, const std::vector<double>& values) {
  w.Key(key);
  w.StartArray();
  for (double value : values) w.Double(std::isfinite(value) ? value : 0);
  w.EndArray();
}

// {"<batch size>": executions} from batch_stats[].compute_infer.count.
void WriteBatchExecutions(Writer& w, const rapidjson::Value& stats) {
  w.Key("batch_executions");
  w.StartObject();
  const auto batches = stats.FindMember("batch_stats");
  if (batches != stats.MemberEnd() && batches->value.IsArray()) {
    for (const rapidjson::Value& batch : batches->value.GetArray()) {
      if (!batch.IsObject() || !batch.HasMember("compute_infer")) continue;
      w.Key(std::to_string(Number(batch, "batch_size")).c_str());
      w.Uint64(Number(batch["compute_infer"], "count"));
    }
  }
  w.EndObject();
}

void WriteStats(Writer& w, const rapidjson::Value& stats, const ModelMetrics& metrics) {
  w.StartObject();
  w.Key("success");
  w.Uint64(Count(stats, "success"));
  w.Key("failure");
  w.Uint64(Count(stats, "fail"));
  w.Key("inferences");
  w.Uint64(Number(stats, "inference_count"));
  w.Key("executions");
  w.Uint64(Number(stats, "execution_count"));
  w.Key("queue_depth");
  w.Double(metrics.queue_depth);
  w.Key("in_flight");
  w.Double(metrics.in_flight);
  w.Key("cache_hits");
  w.Uint64(Count(stats, "cache_hit"));
  w.Key("cache_misses");
  w.Uint64(Count(stats, "cache_miss"));
  WriteNumbers(w, "queue_buckets", metrics.queue_buckets);
  WriteNumbers(w, "compute_buckets", metrics.compute_buckets);
  WriteBatchExecutions(w, stats);
  w.EndObject();
}

void WriteModel(Writer& w, const rapidjson::Value& entry,
                const std::map<ModelKey, const rapidjson::Value*>& statistics,
                const MetricsSnapshot& metrics) {
  const ModelKey key(Text(entry, "name"), Text(entry, "version"));
  w.StartObject();
  w.Key("name");
  w.String(key.first.c_str(), static_cast<rapidjson::SizeType>(key.first.size()));
  w.Key("version");
  w.String(key.second.c_str(), static_cast<rapidjson::SizeType>(key.second.size()));
  const std::string state = Text(entry, "state");
  w.Key("state");
  w.String(state.empty() ? "UNLOADED" : state.c_str());  // never loaded: no state in the index
  const std::string reason = Text(entry, "reason");
  w.Key("reason");
  w.String(reason.c_str(), static_cast<rapidjson::SizeType>(reason.size()));
  w.Key("stats");
  const auto stats = statistics.find(key);
  if (stats == statistics.end()) {
    w.Null();
  } else {
    const auto found = metrics.models.find(key);
    WriteStats(w, *stats->second, found == metrics.models.end() ? ModelMetrics() : found->second);
  }
  w.EndObject();
}

void WriteServer(Writer& w, const DashboardSources& sources, const MetricsSnapshot& metrics) {
  w.Key("process");
  if (sources.process) {
    w.StartObject();
    w.Key("cpu_seconds");
    w.Double(sources.process->cpu_seconds);
    w.Key("resident_bytes");
    w.Uint64(sources.process->resident_bytes);
    w.EndObject();
  } else {
    w.Null();
  }
  // The machine's, as Triton's nv_cpu_* gauges (absent with --allow-cpu-metrics=false).
  w.Key("machine");
  if (metrics.cpu_utilization && metrics.memory_used && metrics.memory_total) {
    w.StartObject();
    w.Key("cpu_utilization");
    w.Double(std::isfinite(*metrics.cpu_utilization) ? *metrics.cpu_utilization : 0);
    w.Key("memory_used_bytes");
    w.Double(*metrics.memory_used);
    w.Key("memory_total_bytes");
    w.Double(*metrics.memory_total);
    w.EndObject();
  } else {
    w.Null();
  }
}

// (name, version) -> the model_stats entry of the statistics document.
StatusOr<std::map<ModelKey, const rapidjson::Value*>> IndexStatistics(
    const rapidjson::Document& statistics) {
  const Status malformed =
      Status::Internal("the server's statistics are not {\"model_stats\": [...]}");
  if (!statistics.IsObject()) return malformed;
  const auto list = statistics.FindMember("model_stats");
  if (list == statistics.MemberEnd() || !list->value.IsArray()) return malformed;
  std::map<ModelKey, const rapidjson::Value*> by_model;
  for (const rapidjson::Value& stats : list->value.GetArray()) {
    if (stats.IsObject()) by_model[ModelKey(Text(stats, "name"), Text(stats, "version"))] = &stats;
  }
  return by_model;
}

}  // namespace

StatusOr<std::string> DashboardDataJson(const DashboardSources& sources) {
  rapidjson::Document index, statistics;
  index.Parse(sources.index_json.data(), sources.index_json.size());
  if (index.HasParseError() || !index.IsArray()) {
    return Status::Internal("the server's repository index is not a JSON array");
  }
  statistics.Parse(sources.statistics_json.data(), sources.statistics_json.size());
  ASSIGN_OR_RETURN(const auto by_model, IndexStatistics(statistics));
  const MetricsSnapshot metrics = ReadMetrics(sources.metrics_text);
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  w.Key("time_ms");
  w.Uint64(sources.time_ms);
  w.Key("repository_api");
  w.Bool(sources.repository_api);
  WriteServer(w, sources, metrics);
  WriteNumbers(w, "latency_bounds_seconds", metrics.bounds);
  w.Key("models");
  w.StartArray();
  for (const rapidjson::Value& entry : index.GetArray()) {
    if (entry.IsObject()) WriteModel(w, entry, by_model, metrics);
  }
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

namespace {

// The text of a message the server returned; the message is freed.
StatusOr<std::string> TakeMessage(INFERD_Error* error, INFERD_Message* message) {
  RETURN_IF_ERROR(StatusFromServerError(error));
  const char* base = nullptr;
  size_t size = 0;
  const Status serialized =
      StatusFromServerError(INFERD_MessageSerializeToJson(message, &base, &size));
  std::string text = serialized.ok() ? std::string(base, size) : std::string();
  DiscardServerError(INFERD_MessageDelete(message));
  if (!serialized.ok()) return serialized;
  return text;
}

}  // namespace

StatusOr<std::string> CollectDashboardData(INFERD_Server* server, bool repository_api) {
  INFERD_Message* message = nullptr;
  INFERD_Error* error = INFERD_ServerModelIndex(server, 0, &message);
  ASSIGN_OR_RETURN(const std::string index, TakeMessage(error, message));
  error = INFERD_ServerModelStatistics(server, nullptr, -1, &message);
  ASSIGN_OR_RETURN(const std::string statistics, TakeMessage(error, message));
  error = INFERD_ServerMetrics(server, &message);
  ASSIGN_OR_RETURN(const std::string metrics, TakeMessage(error, message));
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return DashboardDataJson(DashboardSources{
      .index_json = index,
      .statistics_json = statistics,
      .metrics_text = metrics,
      .process = ReadProcessUsage(),
      .time_ms = static_cast<uint64_t>(
          std::chrono::duration_cast<std::chrono::milliseconds>(now).count()),
      .repository_api = repository_api,
  });
}

}  // namespace inferd::http

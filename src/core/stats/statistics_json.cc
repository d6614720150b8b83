#include "core/stats/statistics_json.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "core/stats/model_statistics.h"

namespace inferd {
namespace {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

uint64_t Load(const std::atomic<uint64_t>& value) {
  return value.load(std::memory_order_relaxed);
}

void WriteDuration(JsonWriter& w, const char* key, uint64_t count, const DurationStat& stat) {
  w.Key(key);
  w.StartObject();
  w.Key("count");
  w.Uint64(count);
  w.Key("ns");
  w.Uint64(Load(stat.ns));
  w.EndObject();
}

void WriteDuration(JsonWriter& w, const char* key, const DurationStat& stat) {
  WriteDuration(w, key, Load(stat.count), stat);
}

// compute_input, compute_infer and compute_output: each execution counts once
// in all three, so one count read once is rendered for all three. Reading
// three counters that an execution may be updating would tear (perf_analyzer
// refuses statistics whose compute counts differ).
void WriteCompute(JsonWriter& w, const DurationStat& input, const DurationStat& infer,
                  const DurationStat& output) {
  // Acquire: the times of every execution counted here are seen below.
  const uint64_t count = infer.count.load(std::memory_order_acquire);
  WriteDuration(w, "compute_input", count, input);
  WriteDuration(w, "compute_infer", count, infer);
  WriteDuration(w, "compute_output", count, output);
}

// {"0": {...}, "1": {...}, ...}: indexes are dense (a request's k-th
// response follows its first k), so rendering stops at the first index never
// seen.
void WriteResponseStats(JsonWriter& w, const ResponseStatistics& responses) {
  w.Key("response_stats");
  w.StartObject();
  for (size_t index = 0;; ++index) {
    const ResponseStat* stat = responses.At(index);
    if (stat == nullptr) break;
    w.Key(std::to_string(index).c_str());
    w.StartObject();
    WriteDuration(w, "compute_infer", stat->compute_infer);
    WriteDuration(w, "compute_output", stat->compute_output);
    WriteDuration(w, "success", stat->success);
    WriteDuration(w, "fail", stat->fail);
    WriteDuration(w, "empty_response", stat->empty_response);
    WriteDuration(w, "cancel", stat->cancel);
    w.EndObject();
  }
  w.EndObject();
}

void WriteModel(JsonWriter& w, const NamedStatistics& model) {
  const ModelStatistics& s = *model.stats;
  w.StartObject();
  w.Key("name");
  w.String(model.name.c_str());
  w.Key("version");
  w.String(std::to_string(model.version).c_str());
  w.Key("last_inference");
  w.Uint64(Load(s.last_inference_ms));
  w.Key("inference_count");
  w.Uint64(Load(s.inference_count));
  w.Key("execution_count");
  w.Uint64(Load(s.execution_count));
  w.Key("inference_stats");
  w.StartObject();
  WriteDuration(w, "success", s.success);
  WriteDuration(w, "fail", s.fail);
  WriteDuration(w, "queue", s.queue);
  WriteCompute(w, s.compute_input, s.compute_infer, s.compute_output);
  WriteDuration(w, "cache_hit", s.cache_hit);
  WriteDuration(w, "cache_miss", s.cache_miss);
  WriteDuration(w, "rate_limiter_wait", s.rate_limiter_wait);
  w.EndObject();
  w.Key("batch_stats");
  w.StartArray();
  for (int64_t size = 1; size < s.batch_slots; ++size) {
    const BatchStat& b = s.batch[size];
    if (Load(b.compute_infer.count) == 0) continue;
    w.StartObject();
    w.Key("batch_size");
    w.Int64(size);
    WriteCompute(w, b.compute_input, b.compute_infer, b.compute_output);
    w.EndObject();
  }
  w.EndArray();
  WriteResponseStats(w, s.responses);
  w.EndObject();
}

}  // namespace

std::string StatisticsJson(const std::vector<NamedStatistics>& models) {
  rapidjson::StringBuffer buffer;
  JsonWriter w(buffer);
  w.StartObject();
  w.Key("model_stats");
  w.StartArray();
  for (const NamedStatistics& model : models) WriteModel(w, model);
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace inferd

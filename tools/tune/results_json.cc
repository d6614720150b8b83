// ResultsJson (results_json.h) with RapidJSON's writer.
#include "tune/results_json.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <cstdint>

namespace inferd::tune {
namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

// "key": value, for each kind of value the file has.
void Field(Writer& w, const char* key, int64_t value) {
  w.Key(key);
  w.Int64(value);
}
void Field(Writer& w, const char* key, uint64_t value) {
  w.Key(key);
  w.Uint64(value);
}
void Field(Writer& w, const char* key, double value) {
  w.Key(key);
  w.Double(value);
}
void Field(Writer& w, const char* key, bool value) {
  w.Key(key);
  w.Bool(value);
}
void Field(Writer& w, const char* key, const std::string& value) {
  w.Key(key);
  w.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
}

void WriteSettingFields(const Setting& s, Writer& w) {
  Field(w, "max_batch_size", s.max_batch_size);
  Field(w, "queue_delay_us", s.queue_delay_us);
  Field(w, "instances", s.instances);
}

void WriteStep(const StepMeasurement& step, Writer& w) {
  w.StartObject();
  Field(w, "concurrency", step.concurrency);
  Field(w, "throughput", step.throughput);
  Field(w, "p50_ms", step.p50_ms);
  Field(w, "p99_ms", step.p99_ms);
  Field(w, "requests", uint64_t(step.requests));
  Field(w, "errors", uint64_t(step.errors));
  w.EndObject();
}

void WritePoint(const PointResult& point, Writer& w) {
  w.StartObject();
  WriteSettingFields(point.setting, w);
  Field(w, "feasible", point.score.feasible);
  Field(w, "throughput", point.score.throughput);
  w.Key("p99_ms");
  if (point.best_step < point.steps.size()) w.Double(point.steps[point.best_step].p99_ms);
  else w.Null();
  w.Key("best_concurrency");
  if (point.best_step < point.steps.size()) w.Int64(point.steps[point.best_step].concurrency);
  else w.Null();
  Field(w, "load_secs", point.load_secs);
  Field(w, "error", point.error);
  w.Key("steps");
  w.StartArray();
  for (const StepMeasurement& step : point.steps) WriteStep(step, w);
  w.EndArray();
  w.EndObject();
}

void WriteRunFields(const TuneResult& r, Writer& w) {
  Field(w, "model", r.model);
  Field(w, "server", r.server);
  Field(w, "mode", r.mode);
  Field(w, "latency_target_ms", r.latency_target_ms);
  Field(w, "grid_size", uint64_t(r.grid_size));
  Field(w, "seconds", r.seconds);
  Field(w, "interrupted", r.interrupted);
  Field(w, "restored", r.restored);
  Field(w, "restore_note", r.restore_note);
}

}  // namespace

std::string ResultsJson(const TuneResult& result) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.SetMaxDecimalPlaces(3);
  w.StartObject();
  WriteRunFields(result, w);
  w.Key("original");
  w.StartObject();
  WriteSettingFields(result.original, w);
  w.EndObject();
  w.Key("recommended");
  if (const PointResult* best = result.recommended()) {
    w.StartObject();
    WriteSettingFields(best->setting, w);
    w.EndObject();
    w.Key("recommended_index");
    w.Uint64(result.best);
  } else {
    w.Null();
    w.Key("recommended_index");
    w.Null();
  }
  w.Key("points");
  w.StartArray();
  for (const PointResult& point : result.points) WritePoint(point, w);
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

}  // namespace inferd::tune

// ResultsJson (results_json.h) with RapidJSON's writer.
#include "tune/results_json.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

namespace inferd::tune {
namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void WriteSettingFields(const Setting& s, Writer& w) {
  w.Key("max_batch_size");
  w.Int64(s.max_batch_size);
  w.Key("queue_delay_us");
  w.Int64(s.queue_delay_us);
  w.Key("instances");
  w.Int64(s.instances);
}

void WriteStep(const StepMeasurement& step, Writer& w) {
  w.StartObject();
  w.Key("concurrency");
  w.Int64(step.concurrency);
  w.Key("throughput");
  w.Double(step.throughput);
  w.Key("p50_ms");
  w.Double(step.p50_ms);
  w.Key("p99_ms");
  w.Double(step.p99_ms);
  w.Key("requests");
  w.Uint64(step.requests);
  w.Key("errors");
  w.Uint64(step.errors);
  w.EndObject();
}

void WritePoint(const PointResult& point, Writer& w) {
  w.StartObject();
  WriteSettingFields(point.setting, w);
  w.Key("feasible");
  w.Bool(point.score.feasible);
  w.Key("throughput");
  w.Double(point.score.throughput);
  w.Key("p99_ms");
  if (point.best_step < point.steps.size()) w.Double(point.steps[point.best_step].p99_ms);
  else w.Null();
  w.Key("best_concurrency");
  if (point.best_step < point.steps.size()) w.Int64(point.steps[point.best_step].concurrency);
  else w.Null();
  w.Key("load_secs");
  w.Double(point.load_secs);
  w.Key("error");
  w.String(point.error.c_str());
  w.Key("steps");
  w.StartArray();
  for (const StepMeasurement& step : point.steps) WriteStep(step, w);
  w.EndArray();
  w.EndObject();
}

void WriteRunFields(const TuneResult& r, Writer& w) {
  w.Key("model");
  w.String(r.model.c_str());
  w.Key("server");
  w.String(r.server.c_str());
  w.Key("mode");
  w.String(r.mode.c_str());
  w.Key("latency_target_ms");
  w.Double(r.latency_target_ms);
  w.Key("grid_size");
  w.Uint64(r.grid_size);
  w.Key("seconds");
  w.Double(r.seconds);
  w.Key("interrupted");
  w.Bool(r.interrupted);
  w.Key("restored");
  w.Bool(r.restored);
  w.Key("restore_note");
  w.String(r.restore_note.c_str());
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

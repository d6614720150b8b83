// The settings of the trace extension (Triton's names): what a trace setting
// is, how a client's update to it is read, and how settings are rendered.
//
// Settings travel as JSON on both protocols: {"trace_level": ["TIMESTAMPS"],
// "trace_rate": "1", ...}. Values are strings or arrays of strings; null clears
// a setting (a model's then falls back to the global one). Pure functions.
#ifndef INFERD_CORE_TRACE_TRACE_SETTINGS_H_
#define INFERD_CORE_TRACE_TRACE_SETTINGS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "inferd/base/status.h"
#include "core/trace/otlp_encoder.h"

namespace inferd {

// TENSORS, Triton's second level, is refused with INVALID_ARG: inferd records
// timestamps only.
enum class TraceLevel { kOff, kTimestamps };

// Where traces go: Triton's JSON file, or spans to an OpenTelemetry collector.
enum class TraceMode { kTriton, kOpenTelemetry };

// Triton's bsp_* settings of the batch span processor (OtlpExporter), with
// the OpenTelemetry SDK's defaults.
struct BatchSpanSettings {
  uint32_t max_queue_size = 2048;
  uint32_t schedule_delay_ms = 5000;
  uint32_t max_export_batch_size = 512;
};

// `--trace-config opentelemetry,<setting>=<value>` (Triton's names).
struct OpenTelemetrySettings {
  std::string url = "http://localhost:4318/v1/traces";
  ResourceAttributes resource;  // service.name=inferd unless given
  OtlpProtocol protocol = OtlpProtocol::kHttpProtobuf;  // protocol=http/protobuf|http/json
  BatchSpanSettings batch;
};

struct TraceSettings {
  TraceLevel level = TraceLevel::kOff;
  uint32_t rate = 1000;      // every rate-th request is traced
  int32_t count = -1;        // traces left to take; -1 = no limit
  uint32_t log_frequency = 0;  // write every N traces; 0 = at shutdown
  std::string file;
  TraceMode mode = TraceMode::kTriton;
  OpenTelemetrySettings opentelemetry;

  bool Traces() const {
    return level != TraceLevel::kOff && (mode == TraceMode::kOpenTelemetry || !file.empty());
  }
  // Whether requests are sampled under these settings.
  bool Sampling() const { return Traces() && rate > 0 && count != 0; }
};

// Why `settings` cannot trace although its level asks for it; empty when they
// can, or when the level is OFF.
std::string TraceSettingsProblem(const TraceSettings& settings);

// One setting in an update: left as it is, given a value, or cleared.
template <typename T>
struct SettingChange {
  enum class Kind { kKeep, kSet, kClear };
  Kind kind = Kind::kKeep;
  T value{};

  bool keep() const { return kind == Kind::kKeep; }
  bool set() const { return kind == Kind::kSet; }
  bool clear() const { return kind == Kind::kClear; }
};

struct TraceSettingsUpdate {
  SettingChange<TraceLevel> level;
  SettingChange<uint32_t> rate;
  SettingChange<int32_t> count;
  SettingChange<uint32_t> log_frequency;
};

// What a model (or the global setting) states itself; an absent field falls
// back (a model's to the global setting, the global one to the startup flags).
struct TraceOverrides {
  std::optional<TraceLevel> level;
  std::optional<uint32_t> rate;
  std::optional<int32_t> count;
  std::optional<uint32_t> log_frequency;

  bool empty() const { return !level && !rate && !count && !log_frequency; }
};

// Reads a trace setting request: a JSON object (an empty text is an empty
// object). An unknown setting, a value of the wrong type or out of range is
// INVALID_ARG naming the setting and the value; trace_file is UNSUPPORTED (it
// is chosen at startup, as in Triton); trace_mode may only be "triton".
StatusOr<TraceSettingsUpdate> ParseTraceSettingsUpdate(std::string_view json);

// `overrides` after `update`.
TraceOverrides ApplyUpdate(TraceOverrides overrides, const TraceSettingsUpdate& update);

// The settings document both protocols answer with: trace_level (an array),
// trace_rate, trace_count, log_frequency, trace_file and trace_mode.
std::string TraceSettingsJson(const TraceSettings& settings);

// A startup setting, as --trace-config gives it: file, level, rate, count,
// log-frequency (or log_frequency) or mode; "triton,<setting>" for file and
// log-frequency, "opentelemetry,<setting>" for url, resource (key=value,
// repeatable), bsp_max_queue_size, bsp_schedule_delay (ms) and
// bsp_max_export_batch_size. A repeated level adds to the earlier ones as in
// Triton (OFF resets).
Status ApplyStartupTraceSetting(TraceSettings* settings, std::string_view name,
                                std::string_view value);

}  // namespace inferd

#endif  // INFERD_CORE_TRACE_TRACE_SETTINGS_H_

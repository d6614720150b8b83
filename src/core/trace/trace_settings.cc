#include "core/trace/trace_settings.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>
#include <limits>
#include <vector>

#include "core/trace/otlp_http.h"

namespace inferd {
namespace {

constexpr std::string_view kKnownSettings =
    "trace_level, trace_rate, trace_count and log_frequency";

std::string Quote(std::string_view text) { return "'" + std::string(text) + "'"; }

// The strings a setting's value holds: a string, a number (written as its
// text), or an array of strings. Null was handled by the caller.
Status ValueStrings(std::string_view name, const rapidjson::Value& value,
                    std::vector<std::string>* out) {
  const auto bad = [&] {
    return Status::InvalidArg("trace setting " + Quote(name) +
                              ": expected a string or an array of strings");
  };
  if (value.IsString()) {
    out->emplace_back(value.GetString(), value.GetStringLength());
  } else if (value.IsInt64()) {
    out->push_back(std::to_string(value.GetInt64()));
  } else if (value.IsArray()) {
    for (const auto& item : value.GetArray()) {
      if (!item.IsString()) return bad();
      out->emplace_back(item.GetString(), item.GetStringLength());
    }
  } else {
    return bad();
  }
  return Status::Ok();
}

// A single-valued setting's one string.
StatusOr<std::string> OneString(std::string_view name, const rapidjson::Value& value) {
  std::vector<std::string> strings;
  RETURN_IF_ERROR(ValueStrings(name, value, &strings));
  if (strings.size() != 1) {
    return Status::InvalidArg("trace setting " + Quote(name) + " takes exactly one value, got " +
                              std::to_string(strings.size()));
  }
  return strings.front();
}

template <typename T>
StatusOr<T> ParseInteger(std::string_view name, std::string_view text, T min, const char* expected) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min) {
    return Status::InvalidArg("trace setting " + Quote(name) + ": expected " + expected +
                              ", got " + Quote(text));
  }
  return value;
}

StatusOr<TraceLevel> ParseLevels(const std::vector<std::string>& levels) {
  if (levels.empty()) {
    return Status::InvalidArg("trace setting 'trace_level': expected at least one level "
                              "(OFF or TIMESTAMPS)");
  }
  TraceLevel level = TraceLevel::kOff;
  for (const std::string& text : levels) {
    if (text == "OFF") {
      if (levels.size() != 1) {
        return Status::InvalidArg(
            "trace setting 'trace_level': OFF cannot be combined with other levels");
      }
    } else if (text == "TIMESTAMPS") {
      level = TraceLevel::kTimestamps;
    } else if (text == "TENSORS") {
      return Status::InvalidArg("trace setting 'trace_level': level 'TENSORS' is not supported "
                                "by inferd (it records TIMESTAMPS only)");
    } else {
      return Status::InvalidArg("trace setting 'trace_level': unknown level " + Quote(text) +
                                "; expected OFF or TIMESTAMPS");
    }
  }
  return level;
}

template <typename T>
Status ParseChange(std::string_view name, const rapidjson::Value& value, T min,
                   const char* expected, SettingChange<T>* change) {
  if (value.IsNull()) {
    change->kind = SettingChange<T>::Kind::kClear;
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(std::string text, OneString(name, value));
  ASSIGN_OR_RETURN(change->value, ParseInteger<T>(name, text, min, expected));
  change->kind = SettingChange<T>::Kind::kSet;
  return Status::Ok();
}

template <typename T>
void Apply(const SettingChange<T>& change, std::optional<T>* field) {
  if (change.set()) *field = change.value;
  if (change.clear()) field->reset();
}

}  // namespace

std::string TraceSettingsProblem(const TraceSettings& settings) {
  if (settings.level == TraceLevel::kOff) return "";
  if (settings.mode == TraceMode::kOpenTelemetry) {
    // rate 0 traces only the requests whose caller's traceparent is sampled.
    const BatchSpanSettings& batch = settings.opentelemetry.batch;
    if (batch.max_export_batch_size > batch.max_queue_size) {
      return "bsp_max_export_batch_size (" + std::to_string(batch.max_export_batch_size) +
             ") must not exceed bsp_max_queue_size (" + std::to_string(batch.max_queue_size) + ")";
    }
    return "";
  }
  if (settings.rate == 0) return "trace_rate must be at least 1 while tracing is on";
  if (settings.file.empty()) {
    return "no trace file is set (start inferd with --trace-config triton,file=<path>)";
  }
  return "";
}

StatusOr<TraceSettingsUpdate> ParseTraceSettingsUpdate(std::string_view json) {
  TraceSettingsUpdate update;
  if (json.find_first_not_of(" \t\r\n") == std::string_view::npos) return update;
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    return Status::InvalidArg("the trace setting request must be a JSON object");
  }
  for (const auto& member : doc.GetObject()) {
    const std::string_view name(member.name.GetString(), member.name.GetStringLength());
    const rapidjson::Value& value = member.value;
    if (name == "trace_level") {
      if (value.IsNull()) {
        update.level.kind = SettingChange<TraceLevel>::Kind::kClear;
        continue;
      }
      std::vector<std::string> levels;
      RETURN_IF_ERROR(ValueStrings(name, value, &levels));
      ASSIGN_OR_RETURN(update.level.value, ParseLevels(levels));
      update.level.kind = SettingChange<TraceLevel>::Kind::kSet;
    } else if (name == "trace_rate") {
      RETURN_IF_ERROR(ParseChange<uint32_t>(name, value, 0, "a non-negative 32-bit integer",
                                            &update.rate));
    } else if (name == "trace_count") {
      RETURN_IF_ERROR(ParseChange<int32_t>(name, value, -1,
                                           "-1 (no limit) or a non-negative 32-bit integer",
                                           &update.count));
    } else if (name == "log_frequency") {
      RETURN_IF_ERROR(ParseChange<uint32_t>(name, value, 0, "a non-negative 32-bit integer",
                                            &update.log_frequency));
    } else if (name == "trace_file") {
      return Status::Unsupported(
          "trace setting 'trace_file' cannot be changed through the trace API; start inferd "
          "with --trace-config triton,file=<path>");
    } else if (name == "trace_mode") {
      if (value.IsNull()) continue;
      ASSIGN_OR_RETURN(std::string mode, OneString(name, value));
      // The mode is chosen at startup; the settings document a GET answers can
      // be posted back whole.
      if (mode != "triton" && mode != "opentelemetry") {
        return Status::InvalidArg("trace setting 'trace_mode': expected 'triton' or "
                                  "'opentelemetry', got " + Quote(mode));
      }
    } else {
      return Status::InvalidArg("unknown trace setting " + Quote(name) + "; the settings are " +
                                std::string(kKnownSettings));
    }
  }
  return update;
}

TraceOverrides ApplyUpdate(TraceOverrides overrides, const TraceSettingsUpdate& update) {
  Apply(update.level, &overrides.level);
  Apply(update.rate, &overrides.rate);
  Apply(update.count, &overrides.count);
  Apply(update.log_frequency, &overrides.log_frequency);
  return overrides;
}

std::string TraceSettingsJson(const TraceSettings& settings) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  const auto string = [&](const char* key, const std::string& value) {
    writer.Key(key);
    writer.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
  };
  writer.StartObject();
  writer.Key("trace_level");
  writer.StartArray();
  writer.String(settings.level == TraceLevel::kOff ? "OFF" : "TIMESTAMPS");
  writer.EndArray();
  string("trace_rate", std::to_string(settings.rate));
  string("trace_count", std::to_string(settings.count));
  string("log_frequency", std::to_string(settings.log_frequency));
  string("trace_file", settings.file);
  string("trace_mode", settings.mode == TraceMode::kTriton ? "triton" : "opentelemetry");
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

namespace {

// "key=value" into the resource attributes; a key given again is replaced.
Status AddResource(OpenTelemetrySettings* settings, std::string_view value) {
  const size_t equals = value.find('=');
  if (equals == std::string_view::npos || equals == 0) {
    return Status::InvalidArg("trace setting 'resource': expected <key>=<value>, got " +
                              Quote(value));
  }
  std::string key(value.substr(0, equals));
  std::string text(value.substr(equals + 1));
  for (auto& [existing, existing_value] : settings->resource) {
    if (existing == key) {
      existing_value = std::move(text);
      return Status::Ok();
    }
  }
  settings->resource.emplace_back(std::move(key), std::move(text));
  return Status::Ok();
}

// OTEL_EXPORTER_OTLP_PROTOCOL's values but grpc.
StatusOr<OtlpProtocol> ParseProtocol(std::string_view value) {
  if (value == "http/protobuf") return OtlpProtocol::kHttpProtobuf;
  if (value == "http/json") return OtlpProtocol::kHttpJson;
  return Status::InvalidArg(
      "trace setting 'opentelemetry,protocol': expected http/protobuf or http/json, got " +
      Quote(value));
}

Status ApplyOpenTelemetrySetting(OpenTelemetrySettings* settings, std::string_view name,
                                 std::string_view value) {
  constexpr const char* kPositive = "a positive 32-bit integer";
  BatchSpanSettings& batch = settings->batch;
  if (name == "url") {
    RETURN_IF_ERROR(ParseOtlpUrl(value).status());
    settings->url = std::string(value);
  } else if (name == "resource") {
    return AddResource(settings, value);
  } else if (name == "protocol") {
    ASSIGN_OR_RETURN(settings->protocol, ParseProtocol(value));
  } else if (name == "bsp_max_queue_size") {
    ASSIGN_OR_RETURN(batch.max_queue_size, ParseInteger<uint32_t>(name, value, 1, kPositive));
  } else if (name == "bsp_schedule_delay") {
    ASSIGN_OR_RETURN(batch.schedule_delay_ms, ParseInteger<uint32_t>(name, value, 1, kPositive));
  } else if (name == "bsp_max_export_batch_size") {
    ASSIGN_OR_RETURN(batch.max_export_batch_size,
                     ParseInteger<uint32_t>(name, value, 1, kPositive));
  } else {
    return Status::InvalidArg("unknown trace setting 'opentelemetry," + std::string(name) +
                              "'; expected url, resource, protocol, bsp_max_queue_size, "
                              "bsp_schedule_delay or bsp_max_export_batch_size");
  }
  return Status::Ok();
}

Status ApplyMode(TraceSettings* settings, std::string_view value) {
  if (value == "triton") {
    settings->mode = TraceMode::kTriton;
  } else if (value == "opentelemetry") {
    settings->mode = TraceMode::kOpenTelemetry;
  } else {
    return Status::InvalidArg("trace setting 'mode': expected triton or opentelemetry, got " +
                              Quote(value));
  }
  return Status::Ok();
}

}  // namespace

Status ApplyStartupTraceSetting(TraceSettings* settings, std::string_view name,
                                std::string_view value) {
  if (name.rfind("opentelemetry,", 0) == 0) {
    return ApplyOpenTelemetrySetting(&settings->opentelemetry, name.substr(14), value);
  }
  if (name.rfind("triton,", 0) == 0) {
    name.remove_prefix(7);
    if (name != "file" && name != "log-frequency" && name != "log_frequency") {
      return Status::InvalidArg("unknown trace setting 'triton," + std::string(name) +
                                "'; expected file or log-frequency");
    }
  }
  const std::string flag = "trace setting " + Quote(name);
  if (name == "file") {
    settings->file = std::string(value);
  } else if (name == "level") {
    if (value == "OFF") {
      settings->level = TraceLevel::kOff;
    } else {
      ASSIGN_OR_RETURN(settings->level, ParseLevels({std::string(value)}));
    }
  } else if (name == "rate") {
    ASSIGN_OR_RETURN(settings->rate,
                     ParseInteger<uint32_t>(name, value, 0, "a non-negative 32-bit integer"));
  } else if (name == "count") {
    ASSIGN_OR_RETURN(settings->count,
                     ParseInteger<int32_t>(name, value, -1,
                                           "-1 (no limit) or a non-negative 32-bit integer"));
  } else if (name == "log-frequency" || name == "log_frequency") {
    ASSIGN_OR_RETURN(settings->log_frequency,
                     ParseInteger<uint32_t>(name, value, 0, "a non-negative 32-bit integer"));
  } else if (name == "mode") {
    return ApplyMode(settings, value);
  } else {
    return Status::InvalidArg("unknown " + flag +
                              "; expected file, level, rate, count, log-frequency or mode");
  }
  return Status::Ok();
}

}  // namespace inferd

#include "core/trace/trace_settings.h"

#include <gtest/gtest.h>

namespace inferd {
namespace {

TraceSettingsUpdate Parse(std::string_view json) {
  auto update = ParseTraceSettingsUpdate(json);
  EXPECT_TRUE(update.ok()) << update.status().message();
  return update.ok() ? std::move(update).value() : TraceSettingsUpdate();
}

Status ParseError(std::string_view json) { return ParseTraceSettingsUpdate(json).status(); }

TEST(TraceSettingsTest, ReadsStringsArraysAndNull) {
  TraceSettingsUpdate update = Parse(
      R"({"trace_level": ["TIMESTAMPS"], "trace_rate": "7", "trace_count": ["-1"],
          "log_frequency": null})");
  ASSERT_TRUE(update.level.set());
  EXPECT_EQ(update.level.value, TraceLevel::kTimestamps);
  ASSERT_TRUE(update.rate.set());
  EXPECT_EQ(update.rate.value, 7u);
  ASSERT_TRUE(update.count.set());
  EXPECT_EQ(update.count.value, -1);
  EXPECT_TRUE(update.log_frequency.clear());
}

TEST(TraceSettingsTest, LevelMayBeOneStringAndOffAlone) {
  EXPECT_EQ(Parse(R"({"trace_level": "OFF"})").level.value, TraceLevel::kOff);
  EXPECT_TRUE(Parse(R"({"trace_level": null})").level.clear());
  EXPECT_TRUE(Parse(R"({"trace_rate": "3"})").level.keep());
}

TEST(TraceSettingsTest, EmptyBodyChangesNothing) {
  TraceSettingsUpdate update = Parse("  ");
  EXPECT_TRUE(update.level.keep() && update.rate.keep() && update.count.keep() &&
              update.log_frequency.keep());
}

TEST(TraceSettingsTest, UnknownSettingIsInvalidAndNamed) {
  Status status = ParseError(R"({"trace_rat": "1"})");
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_NE(status.message().find("'trace_rat'"), std::string::npos) << status.message();
}

TEST(TraceSettingsTest, BadValuesNameTheSettingAndTheValue) {
  for (const char* json : {R"({"trace_rate": "abc"})", R"({"trace_rate": "-1"})",
                           R"({"trace_rate": "99999999999"})", R"({"trace_count": "-2"})",
                           R"({"log_frequency": "1.5"})", R"({"trace_rate": ["1", "2"]})",
                           R"({"trace_rate": true})"}) {
    Status status = ParseError(json);
    EXPECT_EQ(status.code(), Status::Code::kInvalidArg) << json;
  }
  Status rate = ParseError(R"({"trace_rate": "abc"})");
  EXPECT_NE(rate.message().find("'trace_rate'"), std::string::npos) << rate.message();
  EXPECT_NE(rate.message().find("'abc'"), std::string::npos) << rate.message();
  Status level = ParseError(R"({"trace_level": ["LOUD"]})");
  EXPECT_NE(level.message().find("'LOUD'"), std::string::npos) << level.message();
}

TEST(TraceSettingsTest, TensorsAndOffWithOthersAreRefused) {
  Status tensors = ParseError(R"({"trace_level": ["TIMESTAMPS", "TENSORS"]})");
  EXPECT_EQ(tensors.code(), Status::Code::kInvalidArg);
  EXPECT_NE(tensors.message().find("TENSORS"), std::string::npos);
  EXPECT_EQ(ParseError(R"({"trace_level": ["OFF", "TIMESTAMPS"]})").code(),
            Status::Code::kInvalidArg);
  EXPECT_EQ(ParseError(R"({"trace_level": []})").code(), Status::Code::kInvalidArg);
}

TEST(TraceSettingsTest, TraceFileIsSetAtStartupOnly) {
  EXPECT_EQ(ParseError(R"({"trace_file": "/tmp/x"})").code(), Status::Code::kUnsupported);
  EXPECT_TRUE(ParseTraceSettingsUpdate(R"({"trace_mode": "triton"})").ok());
  EXPECT_TRUE(ParseTraceSettingsUpdate(R"({"trace_mode": "opentelemetry"})").ok());
  EXPECT_EQ(ParseError(R"({"trace_mode": "zipkin"})").code(), Status::Code::kInvalidArg);
}

TEST(TraceSettingsTest, ApplyUpdateSetsAndClears) {
  TraceOverrides overrides;
  overrides.rate = 5;
  overrides = ApplyUpdate(overrides, Parse(R"({"trace_rate": null, "trace_count": "3"})"));
  EXPECT_FALSE(overrides.rate.has_value());
  EXPECT_EQ(overrides.count, 3);
  EXPECT_FALSE(overrides.empty());
  EXPECT_TRUE(ApplyUpdate(overrides, Parse(R"({"trace_count": null})")).empty());
}

TEST(TraceSettingsTest, RendersTheTritonDocument) {
  TraceSettings settings;
  settings.level = TraceLevel::kTimestamps;
  settings.rate = 2;
  settings.count = 9;
  settings.log_frequency = 4;
  settings.file = "/tmp/t.json";
  EXPECT_EQ(TraceSettingsJson(settings),
            R"({"trace_level":["TIMESTAMPS"],"trace_rate":"2","trace_count":"9",)"
            R"("log_frequency":"4","trace_file":"/tmp/t.json","trace_mode":"triton"})");
  EXPECT_NE(TraceSettingsJson(TraceSettings()).find(R"("trace_level":["OFF"])"),
            std::string::npos);
}

TEST(TraceSettingsTest, StartupSettingsUseTritonNames) {
  TraceSettings settings;
  ASSERT_TRUE(ApplyStartupTraceSetting(&settings, "file", "/tmp/t.json").ok());
  ASSERT_TRUE(ApplyStartupTraceSetting(&settings, "level", "TIMESTAMPS").ok());
  ASSERT_TRUE(ApplyStartupTraceSetting(&settings, "rate", "10").ok());
  ASSERT_TRUE(ApplyStartupTraceSetting(&settings, "count", "100").ok());
  ASSERT_TRUE(ApplyStartupTraceSetting(&settings, "log-frequency", "50").ok());
  ASSERT_TRUE(ApplyStartupTraceSetting(&settings, "mode", "triton").ok());
  EXPECT_EQ(settings.file, "/tmp/t.json");
  EXPECT_EQ(settings.level, TraceLevel::kTimestamps);
  EXPECT_EQ(settings.rate, 10u);
  EXPECT_EQ(settings.count, 100);
  EXPECT_EQ(settings.log_frequency, 50u);
  EXPECT_EQ(ApplyStartupTraceSetting(&settings, "rate", "x").code(), Status::Code::kInvalidArg);
  EXPECT_EQ(ApplyStartupTraceSetting(&settings, "colour", "1").code(), Status::Code::kInvalidArg);
  EXPECT_EQ(ApplyStartupTraceSetting(&settings, "mode", "zipkin").code(),
            Status::Code::kInvalidArg);
}

TEST(TraceSettingsTest, TracingWithoutFileOrRateIsAProblem) {
  TraceSettings settings;
  EXPECT_EQ(TraceSettingsProblem(settings), "");
  settings.level = TraceLevel::kTimestamps;
  EXPECT_NE(TraceSettingsProblem(settings).find("trace file"), std::string::npos);
  settings.file = "/tmp/t.json";
  EXPECT_EQ(TraceSettingsProblem(settings), "");
  settings.rate = 0;
  EXPECT_NE(TraceSettingsProblem(settings).find("trace_rate"), std::string::npos);
}

}  // namespace
}  // namespace inferd

namespace inferd {
namespace {

TEST(TraceSettingsOpenTelemetryTest, ReadsTritonsOpenTelemetrySettings) {
  TraceSettings settings;
  ASSERT_TRUE(ApplyStartupTraceSetting(&settings, "mode", "opentelemetry").ok());
  ASSERT_TRUE(ApplyStartupTraceSetting(&settings, "opentelemetry,url", "localhost:4318").ok());
  ASSERT_TRUE(ApplyStartupTraceSetting(&settings, "opentelemetry,resource", "a=1").ok());
  ASSERT_TRUE(ApplyStartupTraceSetting(&settings, "opentelemetry,resource", "a=2").ok());
  ASSERT_TRUE(ApplyStartupTraceSetting(&settings, "opentelemetry,resource", "b=x=y").ok());
  ASSERT_TRUE(ApplyStartupTraceSetting(&settings, "opentelemetry,bsp_max_queue_size", "9").ok());
  ASSERT_TRUE(ApplyStartupTraceSetting(&settings, "opentelemetry,bsp_schedule_delay", "50").ok());
  ASSERT_TRUE(
      ApplyStartupTraceSetting(&settings, "opentelemetry,bsp_max_export_batch_size", "3").ok());
  EXPECT_EQ(settings.opentelemetry.protocol, OtlpProtocol::kHttpProtobuf);  // OTLP's default
  ASSERT_TRUE(ApplyStartupTraceSetting(&settings, "opentelemetry,protocol", "http/json").ok());
  ASSERT_TRUE(ApplyStartupTraceSetting(&settings, "level", "TIMESTAMPS").ok());
  EXPECT_EQ(settings.mode, TraceMode::kOpenTelemetry);
  EXPECT_EQ(settings.opentelemetry.protocol, OtlpProtocol::kHttpJson);
  EXPECT_EQ(settings.opentelemetry.url, "localhost:4318");
  EXPECT_EQ(settings.opentelemetry.resource,
            (ResourceAttributes{{"a", "2"}, {"b", "x=y"}}));
  EXPECT_EQ(settings.opentelemetry.batch.max_queue_size, 9u);
  EXPECT_EQ(settings.opentelemetry.batch.schedule_delay_ms, 50u);
  EXPECT_EQ(settings.opentelemetry.batch.max_export_batch_size, 3u);
  // No file is needed, and rate 0 traces only the requests a caller sampled.
  settings.rate = 0;
  EXPECT_EQ(TraceSettingsProblem(settings), "");
  EXPECT_NE(TraceSettingsJson(settings).find(R"("trace_mode":"opentelemetry")"),
            std::string::npos);
}

TEST(TraceSettingsOpenTelemetryTest, RefusesBadOpenTelemetrySettings) {
  TraceSettings settings;
  for (const auto& [name, value] : std::vector<std::pair<const char*, const char*>>{
           {"mode", "zipkin"},
           {"opentelemetry,url", "https://c:4318"},
           {"opentelemetry,resource", "novalue"},
           {"opentelemetry,bsp_max_queue_size", "0"},
           {"opentelemetry,protocol", "grpc"},
           {"opentelemetry,file", "/tmp/x"},
           {"triton,url", "c:1"}}) {
    const Status status = ApplyStartupTraceSetting(&settings, name, value);
    EXPECT_EQ(status.code(), Status::Code::kInvalidArg) << name << "=" << value;
  }
  settings.mode = TraceMode::kOpenTelemetry;
  settings.level = TraceLevel::kTimestamps;
  settings.opentelemetry.batch.max_queue_size = 10;
  settings.opentelemetry.batch.max_export_batch_size = 11;
  EXPECT_NE(TraceSettingsProblem(settings).find("bsp_max_export_batch_size"), std::string::npos);
}

}  // namespace
}  // namespace inferd

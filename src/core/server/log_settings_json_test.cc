// The logging extension's JSON: the settings document and updates to it.
#include "core/server/log_settings_json.h"

#include <gtest/gtest.h>

namespace inferd {
namespace {

LogSettings Apply(const LogSettings& current, std::string_view update) {
  StatusOr<LogSettings> next = ApplyLogSettingsUpdate(current, update);
  EXPECT_TRUE(next.ok()) << update << ": " << next.status().message();
  return next.ok() ? *next : current;
}

// Asserts INVALID_ARG whose message mentions `needle`.
void ExpectInvalid(std::string_view update, std::string_view needle) {
  StatusOr<LogSettings> next = ApplyLogSettingsUpdate(LogSettings(), update);
  ASSERT_FALSE(next.ok()) << update;
  EXPECT_EQ(next.status().code(), Status::Code::kInvalidArg) << update;
  EXPECT_NE(next.status().message().find(needle), std::string::npos)
      << update << " -> " << next.status().message();
}

TEST(LogSettingsJsonTest, DocumentHasTritonsKeysInTritonsOrder) {
  EXPECT_EQ(LogSettingsJson(LogSettings()),
            R"({"log_file":"","log_info":true,"log_warning":true,"log_error":true,)"
            R"("log_verbose_level":0,"log_format":"default"})");
  LogSettings settings;
  settings.file = "/tmp/a \"b\".log";
  settings.info = false;
  settings.verbose = 4294967295u;
  settings.format = LogFormat::kIso8601;
  EXPECT_EQ(LogSettingsJson(settings),
            R"({"log_file":"/tmp/a \"b\".log","log_info":false,"log_warning":true,)"
            R"("log_error":true,"log_verbose_level":4294967295,"log_format":"ISO8601"})");
}

TEST(LogSettingsJsonTest, UpdateChangesOnlyTheKeysGiven) {
  LogSettings current;
  current.verbose = 2;
  current.file = "/var/log/inferd.log";
  LogSettings next = Apply(current, R"({"log_info": false, "log_format": "ISO8601"})");
  EXPECT_FALSE(next.info);
  EXPECT_EQ(next.format, LogFormat::kIso8601);
  EXPECT_EQ(next.verbose, 2u);
  EXPECT_EQ(next.file, "/var/log/inferd.log");
  EXPECT_TRUE(next.warning);
  EXPECT_TRUE(next.error);
}

TEST(LogSettingsJsonTest, EveryKeyCanBeGiven) {
  LogSettings current;
  current.file = "/tmp/x.log";
  const LogSettings next = Apply(current, R"({"log_file": "/tmp/x.log", "log_info": false,
      "log_warning": false, "log_error": false, "log_verbose_level": 7,
      "log_format": "default"})");
  EXPECT_EQ(next.file, "/tmp/x.log");
  EXPECT_FALSE(next.info);
  EXPECT_FALSE(next.warning);
  EXPECT_FALSE(next.error);
  EXPECT_EQ(next.verbose, 7u);
  EXPECT_EQ(next.format, LogFormat::kDefault);
}

TEST(LogSettingsJsonTest, EmptyUpdatesAndNullValuesChangeNothing) {
  LogSettings current;
  current.verbose = 5;
  EXPECT_EQ(Apply(current, ""), current);
  EXPECT_EQ(Apply(current, " \n"), current);
  EXPECT_EQ(Apply(current, "{}"), current);
  EXPECT_EQ(Apply(current, R"({"log_verbose_level": null, "log_file": null})"), current);
}

// Asserts that `update` applied to `current` is UNSUPPORTED, naming log_file
// and --log-file.
void ExpectLogFileRefused(const LogSettings& current, std::string_view update) {
  StatusOr<LogSettings> next = ApplyLogSettingsUpdate(current, update);
  ASSERT_FALSE(next.ok()) << update;
  EXPECT_EQ(next.status().code(), Status::Code::kUnsupported) << update;
  const std::string& message = next.status().message();
  EXPECT_NE(message.find("'log_file' cannot be changed"), std::string::npos) << message;
  EXPECT_NE(message.find("--log-file"), std::string::npos) << message;
}

TEST(LogSettingsJsonTest, LogFileCannotChangeAtRunTime) {
  LogSettings on_stderr;
  ExpectLogFileRefused(on_stderr, R"({"log_file": "/tmp/x.log"})");
  LogSettings in_file;
  in_file.file = "/var/log/inferd.log";
  ExpectLogFileRefused(in_file, R"({"log_file": ""})");  // not back to stderr either
  ExpectLogFileRefused(in_file, R"({"log_file": "/var/log/inferd.log.1"})");
  ExpectLogFileRefused(in_file, R"({"log_file": "/var/log/../log/inferd.log"})");  // exact
  // All or nothing: keys before and after it do not apply either.
  ExpectLogFileRefused(in_file,
                       R"({"log_info": false, "log_file": "/tmp/x.log", "log_verbose_level": 3})");
  const StatusOr<LogSettings> next =
      ApplyLogSettingsUpdate(in_file, R"({"log_file": "/tmp/x.log"})");
  EXPECT_NE(next.status().message().find("/tmp/x.log"), std::string::npos)
      << next.status().message();
}

TEST(LogSettingsJsonTest, SameLogFileIsAccepted) {
  LogSettings in_file;
  in_file.file = "/var/log/inferd.log";
  const LogSettings next =
      Apply(in_file, R"({"log_file": "/var/log/inferd.log", "log_verbose_level": 2})");
  EXPECT_EQ(next.file, "/var/log/inferd.log");
  EXPECT_EQ(next.verbose, 2u);
  EXPECT_EQ(Apply(in_file, R"({"log_file": null})"), in_file);
  EXPECT_EQ(Apply(LogSettings(), R"({"log_file": ""})"), LogSettings());
  // The whole document GET answers can be sent back unchanged.
  in_file.format = LogFormat::kIso8601;
  in_file.warning = false;
  EXPECT_EQ(Apply(in_file, LogSettingsJson(in_file)), in_file);
}

TEST(LogSettingsJsonTest, LogFileOfTheWrongTypeIsInvalidNotUnsupported) {
  LogSettings in_file;
  in_file.file = "/var/log/inferd.log";
  StatusOr<LogSettings> next = ApplyLogSettingsUpdate(in_file, R"({"log_file": false})");
  ASSERT_FALSE(next.ok());
  EXPECT_EQ(next.status().code(), Status::Code::kInvalidArg);
}

TEST(LogSettingsJsonTest, UnknownKeyIsRefusedByName) {
  ExpectInvalid(R"({"log_warnings": true})", "'log_warnings'");
  ExpectInvalid(R"({"log_info": true, "verbose": 1})", "'verbose'");
  ExpectInvalid(R"({"bogus": null})", "'bogus'");
  ExpectInvalid(R"({"bogus": 1})", "log_verbose_level");  // the message lists the known keys
}

TEST(LogSettingsJsonTest, WrongTypesAreRefusedByKey) {
  ExpectInvalid(R"({"log_info": 1})", "'log_info' must be a boolean");
  ExpectInvalid(R"({"log_warning": "true"})", "'log_warning' must be a boolean");
  ExpectInvalid(R"({"log_error": []})", "'log_error' must be a boolean");
  ExpectInvalid(R"({"log_file": 3})", "'log_file' must be a string");
  ExpectInvalid(R"({"log_format": true})", "'log_format' must be a string");
  ExpectInvalid(R"({"log_verbose_level": "1"})", "'log_verbose_level'");
  ExpectInvalid(R"({"log_verbose_level": true})", "'log_verbose_level'");
}

TEST(LogSettingsJsonTest, VerboseLevelMustBeANonNegative32BitInteger) {
  ExpectInvalid(R"({"log_verbose_level": -1})", "'log_verbose_level'");
  ExpectInvalid(R"({"log_verbose_level": 1.5})", "'log_verbose_level'");
  ExpectInvalid(R"({"log_verbose_level": 1.0})", "'log_verbose_level'");
  ExpectInvalid(R"({"log_verbose_level": 4294967296})", "'log_verbose_level'");
  EXPECT_EQ(Apply(LogSettings(), R"({"log_verbose_level": 0})").verbose, 0u);
  EXPECT_EQ(Apply(LogSettings(), R"({"log_verbose_level": 4294967295})").verbose, 4294967295u);
}

TEST(LogSettingsJsonTest, LogFormatIsDefaultOrIso8601Exactly) {
  ExpectInvalid(R"({"log_format": "iso8601"})", "'log_format'");
  ExpectInvalid(R"({"log_format": "json"})", "\"json\"");
  EXPECT_EQ(Apply(LogSettings(), R"({"log_format": "ISO8601"})").format, LogFormat::kIso8601);
}

TEST(LogSettingsJsonTest, UpdateMustBeAJsonObject) {
  ExpectInvalid("[]", "JSON object");
  ExpectInvalid("true", "JSON object");
  ExpectInvalid(R"({"log_info": tru})", "not valid JSON");
  ExpectInvalid(R"({"log_info": true)", "not valid JSON");
}

}  // namespace
}  // namespace inferd

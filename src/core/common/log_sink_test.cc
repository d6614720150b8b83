// Line layout and filtering of the process's log sink.
#include "core/common/log_sink.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>

namespace inferd {
namespace {

using std::chrono::microseconds;
using std::chrono::seconds;

// 2026-11-23 08:10:00.012345 UTC.
const std::chrono::system_clock::time_point kTime{seconds(1795421400) + microseconds(12345)};

LogLineHeader Header(char level, std::string_view file, int line) {
  LogLineHeader header;
  header.level = level;
  header.time = kTime;
  header.pid = 4321;
  header.file = file;
  header.line = line;
  return header;
}

std::string Format(LogFormat format, const LogLineHeader& header, std::string_view message) {
  std::string out;
  FormatLogLine(format, header, message, &out);
  return out;
}

TEST(LogSinkTest, DefaultFormatIsTritons) {
  EXPECT_EQ(Format(LogFormat::kDefault, Header('I', "/src/core/model/model_version.cc", 113),
                   "successfully loaded"),
            "I1123 08:10:00.012345 4321 model_version.cc:113] successfully loaded\n");
}

TEST(LogSinkTest, Iso8601FormatPutsTheDateFirstAndDropsMicroseconds) {
  EXPECT_EQ(Format(LogFormat::kIso8601, Header('W', "main.cc", 7), "careful"),
            "2026-11-23T08:10:00Z W 4321 main.cc:7] careful\n");
}

TEST(LogSinkTest, LineWithoutSourceLeavesOutFileAndLine) {
  EXPECT_EQ(Format(LogFormat::kDefault, Header('E', "", 0), "boom"),
            "E1123 08:10:00.012345 4321] boom\n");
}

TEST(LogSinkTest, AppendsToWhatTheBufferHolds) {
  std::string out = "x";
  FormatLogLine(LogFormat::kIso8601, Header('I', "a.cc", 1), "m", &out);
  EXPECT_EQ(out, "x2026-11-23T08:10:00Z I 4321 a.cc:1] m\n");
}

TEST(LogSinkTest, LevelLettersFollowTriton) {
  EXPECT_EQ(LogLevelLetter(spdlog::level::debug), 'I');  // verbose lines
  EXPECT_EQ(LogLevelLetter(spdlog::level::info), 'I');
  EXPECT_EQ(LogLevelLetter(spdlog::level::warn), 'W');
  EXPECT_EQ(LogLevelLetter(spdlog::level::err), 'E');
  EXPECT_EQ(LogLevelLetter(spdlog::level::critical), 'E');
}

// A logger of its own around a sink writing to a temporary file.
class SinkFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    file_ = std::tmpfile();
    ASSERT_NE(file_, nullptr);
    sink_ = std::make_shared<LogSink>();
    logger_ = std::make_shared<spdlog::logger>("sink-test", sink_);
    logger_->set_level(spdlog::level::trace);
  }

  // Everything written so far (the sink owns and closes the file).
  std::string Written() {
    std::fflush(file_);
    std::rewind(file_);
    std::string text;
    char buffer[512];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof(buffer), file_)) > 0) text.append(buffer, n);
    return text;
  }

  std::FILE* file_ = nullptr;
  std::shared_ptr<LogSink> sink_;
  std::shared_ptr<spdlog::logger> logger_;
};

TEST_F(SinkFixture, DisabledLevelsAreDroppedButVerboseLinesPass) {
  sink_->Apply(file_, LogFormat::kDefault, /*info=*/false, /*warning=*/true, /*error=*/false);
  logger_->info("an info line");
  logger_->debug("a verbose line");
  logger_->warn("a warning line");
  logger_->error("an error line");
  const std::string text = Written();
  EXPECT_EQ(text.find("an info line"), std::string::npos);
  EXPECT_EQ(text.find("an error line"), std::string::npos);
  EXPECT_NE(text.find("] a verbose line\n"), std::string::npos);
  EXPECT_NE(text.find("] a warning line\n"), std::string::npos);
  EXPECT_EQ(text[0], 'I');
}

TEST_F(SinkFixture, FormatChangeAppliesToLaterLines) {
  sink_->Apply(file_, LogFormat::kDefault, true, true, true);
  logger_->info("first");
  sink_->Apply(file_, LogFormat::kIso8601, true, true, true);
  logger_->info("second");
  const std::string text = Written();
  const size_t newline = text.find('\n');
  ASSERT_NE(newline, std::string::npos);
  EXPECT_EQ(text[0], 'I');                 // I1123 ...
  EXPECT_EQ(text.substr(newline + 5, 1), "-");  // 2026-...
  EXPECT_NE(text.find(" I "), std::string::npos);
}

}  // namespace
}  // namespace inferd

// The process's log settings: applying, reading back, switching files, and
// updates that fail leaving everything as it was.
#include "core/common/logging.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "core/test_util/temp_dir.h"

namespace inferd {
namespace {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every test starts and ends with the defaults (stderr, all levels, verbose 0).
class LoggingTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(ConfigureLogging(LogSettings()).ok()); }
  void TearDown() override { EXPECT_TRUE(ConfigureLogging(LogSettings()).ok()); }

  TempDir dir_;
};

TEST_F(LoggingTest, AppliedSettingsReadBackAndReachTheMacros) {
  LogSettings settings;
  settings.verbose = 2;
  settings.info = false;
  settings.format = LogFormat::kIso8601;
  ASSERT_TRUE(ConfigureLogging(settings).ok());
  EXPECT_EQ(CurrentLogSettings(), settings);
  EXPECT_EQ(LogVerboseLevel(), 2u);
  EXPECT_FALSE(log_internal::info_on.load());
  EXPECT_TRUE(log_internal::warning_on.load());
}

TEST_F(LoggingTest, LinesGoToTheLogFileOnceItIsSet) {
  const auto path = dir_.path() / "inferd.log";
  LogSettings settings;
  settings.file = path.string();
  settings.verbose = 1;
  ASSERT_TRUE(ConfigureLogging(settings).ok());
  LOG_INFO("info line {}", 1);
  LOG_VERBOSE(1, "verbose line {}", 2);
  LOG_VERBOSE(2, "too verbose");
  LOG_WARNING("warning line");
  ASSERT_TRUE(ConfigureLogging(LogSettings()).ok());  // closes the file
  LOG_INFO("after the switch back");
  const std::string text = ReadFile(path);
  EXPECT_NE(text.find("logging_test.cc:"), std::string::npos) << text;
  EXPECT_NE(text.find("] info line 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("] verbose line 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nW"), std::string::npos) << text;
  EXPECT_EQ(text.find("too verbose"), std::string::npos) << text;
  EXPECT_EQ(text.find("after the switch back"), std::string::npos) << text;
}

TEST_F(LoggingTest, LogFileIsAppendedToNotTruncated) {
  const auto path = dir_.path() / "kept.log";
  dir_.WriteFile("kept.log", "an earlier line\n");
  LogSettings settings;
  settings.file = path.string();
  ASSERT_TRUE(ConfigureLogging(settings).ok());
  LOG_ERROR("a new line");
  ASSERT_TRUE(ConfigureLogging(LogSettings()).ok());
  const std::string text = ReadFile(path);
  EXPECT_EQ(text.rfind("an earlier line\nE", 0), 0u) << text;
}

TEST_F(LoggingTest, UnopenableFileIsInvalidArgNamingItAndChangesNothing) {
  LogSettings before;
  before.verbose = 3;
  ASSERT_TRUE(ConfigureLogging(before).ok());
  LogSettings bad = before;
  bad.file = (dir_.path() / "no-such-folder" / "x.log").string();
  bad.verbose = 0;
  bad.error = false;
  const Status status = ConfigureLogging(bad);
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_NE(status.message().find(bad.file), std::string::npos) << status.message();
  EXPECT_EQ(CurrentLogSettings(), before);
  EXPECT_EQ(LogVerboseLevel(), 3u);
  EXPECT_TRUE(log_internal::error_on.load());
}

TEST_F(LoggingTest, FailedUpdateChangesNothing) {
  LogSettings applied;
  applied.verbose = 99;
  const Status status = UpdateLogging(
      [](const LogSettings&) -> StatusOr<LogSettings> { return Status::InvalidArg("no"); },
      &applied);
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_EQ(CurrentLogSettings(), LogSettings());
  EXPECT_EQ(applied.verbose, 99u);  // untouched on error
}

TEST_F(LoggingTest, ConcurrentUpdatesDoNotLoseEachOther) {
  // Each thread raises its own flag from the current settings; with the read
  // and the write one step, every raise survives.
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([i] {
      for (int round = 0; round < 50; ++round) {
        const Status status = UpdateLogging(
            [i](const LogSettings& current) -> StatusOr<LogSettings> {
              LogSettings next = current;
              next.verbose |= 1u << i;
              return next;
            },
            nullptr);
        ASSERT_TRUE(status.ok());
        LOG_VERBOSE(1000, "never printed");
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(CurrentLogSettings().verbose, 0xffu);
}

TEST(LogFormatTest, NamesRoundTripAndOthersAreRefused) {
  EXPECT_EQ(LogFormatName(LogFormat::kDefault), "default");
  EXPECT_EQ(LogFormatName(LogFormat::kIso8601), "ISO8601");
  EXPECT_EQ(ParseLogFormat("default"), LogFormat::kDefault);
  EXPECT_EQ(ParseLogFormat("ISO8601"), LogFormat::kIso8601);
  EXPECT_EQ(ParseLogFormat("iso8601"), std::nullopt);
  EXPECT_EQ(ParseLogFormat(""), std::nullopt);
}

}  // namespace
}  // namespace inferd

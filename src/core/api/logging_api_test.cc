// The logging extension through the C ABI: reading the settings, updating
// some of them, and updates that fail changing nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/common/logging.h"
#include "core/test_util/temp_dir.h"
#include "inferd/server.h"

namespace inferd {
namespace {

constexpr const char* kDefaults =
    R"({"log_file":"","log_info":true,"log_warning":true,"log_error":true,)"
    R"("log_verbose_level":0,"log_format":"default"})";

std::string TakeJson(INFERD_Message* message) {
  const char* base = nullptr;
  size_t size = 0;
  EXPECT_EQ(INFERD_MessageSerializeToJson(message, &base, &size), nullptr);
  std::string out(base, size);
  INFERD_MessageDelete(message);
  return out;
}

class LoggingApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_.MakeDir("repo");
    INFERD_ServerOptions* options = nullptr;
    ASSERT_EQ(INFERD_ServerOptionsNew(&options), nullptr);
    const std::string path = (repo_.path() / "repo").string();
    ASSERT_EQ(INFERD_ServerOptionsAddModelRepositoryPath(options, path.c_str()), nullptr);
    ASSERT_EQ(INFERD_ServerNew(&server_, options), nullptr);  // logging back to defaults
    INFERD_ServerOptionsDelete(options);
  }
  void TearDown() override {
    // Back to the defaults for the tests that follow in this process (not
    // through the API, which cannot change the log file).
    EXPECT_TRUE(ConfigureLogging(LogSettings()).ok());
    INFERD_ServerDelete(server_);
  }

  // A second server whose options name `path` as the log file, as
  // --log-file does; the tests' server_ reports its settings too (they are the
  // process's).
  void StartWithLogFile(const std::string& path) {
    INFERD_ServerOptions* options = nullptr;
    ASSERT_EQ(INFERD_ServerOptionsNew(&options), nullptr);
    const std::string repo = (repo_.path() / "repo").string();
    ASSERT_EQ(INFERD_ServerOptionsAddModelRepositoryPath(options, repo.c_str()), nullptr);
    ASSERT_EQ(INFERD_ServerOptionsSetLogFile(options, path.c_str()), nullptr);
    INFERD_Server* second = nullptr;
    ASSERT_EQ(INFERD_ServerNew(&second, options), nullptr);
    INFERD_ServerOptionsDelete(options);
    INFERD_ServerDelete(second);
  }

  std::string ReadFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::string Get() {
    INFERD_Message* settings = nullptr;
    EXPECT_EQ(INFERD_ServerLogSettings(server_, &settings), nullptr);
    return settings ? TakeJson(settings) : "";
  }

  // The new settings document, or the error message prefixed "error: ".
  std::string Update(std::string_view json) {
    INFERD_Message* settings = nullptr;
    INFERD_Error* error =
        INFERD_ServerUpdateLogSettings(server_, json.data(), json.size(), &settings);
    if (error != nullptr) {
      std::string message = std::string("error: ") + INFERD_ErrorCodeString(error) + ": " +
                            INFERD_ErrorMessage(error);
      INFERD_ErrorDelete(error);
      return message;
    }
    return TakeJson(settings);
  }

  TempDir repo_;
  INFERD_Server* server_ = nullptr;
};

TEST_F(LoggingApiTest, ANewServerReportsTheDefaults) { EXPECT_EQ(Get(), kDefaults); }

TEST_F(LoggingApiTest, UpdateReturnsEverySettingNowInForce) {
  EXPECT_EQ(Update(R"({"log_verbose_level": 1})"),
            R"({"log_file":"","log_info":true,"log_warning":true,"log_error":true,)"
            R"("log_verbose_level":1,"log_format":"default"})");
  EXPECT_EQ(Update(R"({"log_format": "ISO8601", "log_info": false})"),
            R"({"log_file":"","log_info":false,"log_warning":true,"log_error":true,)"
            R"("log_verbose_level":1,"log_format":"ISO8601"})");
  EXPECT_EQ(Get(), Update(""));
}

TEST_F(LoggingApiTest, OneBadKeyRefusesTheWholeUpdate) {
  const std::string message =
      Update(R"({"log_verbose_level": 3, "log_format": "ISO8601", "log_info": "no"})");
  EXPECT_EQ(message.rfind("error: INVALID_ARG: ", 0), 0u) << message;
  EXPECT_NE(message.find("'log_info'"), std::string::npos) << message;
  EXPECT_EQ(Get(), kDefaults);
}

TEST_F(LoggingApiTest, LogFileChangeIsUnsupportedAndChangesNothing) {
  const std::string path = (repo_.path() / "elsewhere.log").string();
  const std::string message =
      Update(R"({"log_verbose_level": 2, "log_file": ")" + path + R"("})");
  EXPECT_EQ(message.rfind("error: UNSUPPORTED: ", 0), 0u) << message;
  EXPECT_NE(message.find("--log-file"), std::string::npos) << message;
  EXPECT_EQ(Get(), kDefaults);
  LOG_INFO("a line for stderr");
  EXPECT_FALSE(std::filesystem::exists(path));  // not even created
}

TEST_F(LoggingApiTest, LogFileSetAtStartCannotBeChangedOrDropped) {
  const std::string path = (repo_.path() / "server.log").string();
  StartWithLogFile(path);
  const std::string in_force = Get();
  EXPECT_NE(in_force.find(R"("log_file":")" + path + R"(")"), std::string::npos) << in_force;
  for (const std::string& other : {std::string(""), (repo_.path() / "other.log").string()}) {
    const std::string message =
        Update(R"({"log_info": false, "log_file": ")" + other + R"("})");
    EXPECT_EQ(message.rfind("error: UNSUPPORTED: ", 0), 0u) << message;
    EXPECT_EQ(Get(), in_force);
  }
  LOG_INFO("still in the file");
  EXPECT_NE(ReadFile(path).find("] still in the file\n"), std::string::npos) << ReadFile(path);
}

TEST_F(LoggingApiTest, SameLogFileIsAcceptedAndKeepsAppending) {
  const std::string path = (repo_.path() / "server.log").string();
  StartWithLogFile(path);
  LOG_INFO("before the update");
  const std::string settings =
      Update(R"({"log_file": ")" + path + R"(", "log_verbose_level": 1})");
  EXPECT_NE(settings.find(R"("log_file":")" + path + R"(")"), std::string::npos) << settings;
  EXPECT_NE(settings.find(R"("log_verbose_level":1)"), std::string::npos) << settings;
  EXPECT_EQ(Update(Get()), Get());  // the whole document sent back
  LOG_INFO("after the update");
  const std::string text = ReadFile(path);
  EXPECT_NE(text.find("] before the update\n"), std::string::npos) << text;
  EXPECT_NE(text.find("] after the update\n"), std::string::npos) << text;
}

TEST_F(LoggingApiTest, ServerNewAppliesItsLogOptions) {
  const std::string path = (repo_.path() / "options.log").string();
  INFERD_ServerOptions* options = nullptr;
  ASSERT_EQ(INFERD_ServerOptionsNew(&options), nullptr);
  const std::string repo = (repo_.path() / "repo").string();
  ASSERT_EQ(INFERD_ServerOptionsAddModelRepositoryPath(options, repo.c_str()), nullptr);
  ASSERT_EQ(INFERD_ServerOptionsSetLogFile(options, path.c_str()), nullptr);
  ASSERT_EQ(INFERD_ServerOptionsSetLogFormat(options, INFERD_LOG_FORMAT_ISO8601), nullptr);
  ASSERT_EQ(INFERD_ServerOptionsSetLogWarn(options, false), nullptr);
  ASSERT_EQ(INFERD_ServerOptionsSetLogVerbose(options, -4), nullptr);  // clamped to 0
  INFERD_Server* second = nullptr;
  ASSERT_EQ(INFERD_ServerNew(&second, options), nullptr);
  INFERD_ServerOptionsDelete(options);
  EXPECT_EQ(Get(), R"({"log_file":")" + path +
                       R"(","log_info":true,"log_warning":false,"log_error":true,)"
                       R"("log_verbose_level":0,"log_format":"ISO8601"})");
  INFERD_ServerDelete(second);
}

TEST_F(LoggingApiTest, ServerNewFailsOnAnUnopenableLogFile) {
  INFERD_ServerOptions* options = nullptr;
  ASSERT_EQ(INFERD_ServerOptionsNew(&options), nullptr);
  const std::string repo = (repo_.path() / "repo").string();
  const std::string path = (repo_.path() / "missing" / "x.log").string();
  ASSERT_EQ(INFERD_ServerOptionsAddModelRepositoryPath(options, repo.c_str()), nullptr);
  ASSERT_EQ(INFERD_ServerOptionsSetLogFile(options, path.c_str()), nullptr);
  INFERD_Server* server = nullptr;
  INFERD_Error* error = INFERD_ServerNew(&server, options);
  INFERD_ServerOptionsDelete(options);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(INFERD_ErrorCode(error), INFERD_ERROR_INVALID_ARG);
  EXPECT_NE(std::string(INFERD_ErrorMessage(error)).find(path), std::string::npos);
  INFERD_ErrorDelete(error);
  EXPECT_EQ(Get(), kDefaults);
}

TEST_F(LoggingApiTest, NullArgumentsAreInvalid) {
  INFERD_Message* settings = nullptr;
  INFERD_Error* error = INFERD_ServerLogSettings(nullptr, &settings);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(INFERD_ErrorCode(error), INFERD_ERROR_INVALID_ARG);
  INFERD_ErrorDelete(error);
  error = INFERD_ServerUpdateLogSettings(server_, nullptr, 3, &settings);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(INFERD_ErrorCode(error), INFERD_ERROR_INVALID_ARG);
  INFERD_ErrorDelete(error);
}

}  // namespace
}  // namespace inferd

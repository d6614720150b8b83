// Conversions between the LogSettings messages and the server's JSON, and the
// RPC against a server: a log file change is UNSUPPORTED (UNIMPLEMENTED over
// gRPC). Like the frontend, the test reaches the server through server.h only.
#include "grpc/log_settings_handler.h"

#include <stdlib.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "inferd/server.h"

namespace inferd::grpc_frontend {
namespace {

TEST(LogSettingsHandlerTest, RequestBecomesAJsonObjectSortedByKey) {
  inference::LogSettingsRequest request;
  auto& settings = *request.mutable_settings();
  settings["log_verbose_level"].set_uint32_param(3);
  settings["log_info"].set_bool_param(false);
  settings["log_format"].set_string_param("ISO8601");
  settings["log_file"];  // no parameter set: left unchanged
  EXPECT_EQ(LogSettingsUpdateJson(request),
            R"({"log_file":null,"log_format":"ISO8601","log_info":false,"log_verbose_level":3})");
}

TEST(LogSettingsHandlerTest, EmptyRequestIsAnEmptyObject) {
  EXPECT_EQ(LogSettingsUpdateJson(inference::LogSettingsRequest()), "{}");
}

TEST(LogSettingsHandlerTest, SettingsDocumentFillsTheResponseMap) {
  inference::LogSettingsResponse response;
  ASSERT_TRUE(LogSettingsFromJson(
                  R"({"log_file":"/tmp/x.log","log_info":true,"log_warning":false,)"
                  R"("log_error":true,"log_verbose_level":2,"log_format":"default"})",
                  &response)
                  .ok());
  const auto& settings = response.settings();
  ASSERT_EQ(settings.size(), 6u);
  EXPECT_EQ(settings.at("log_file").string_param(), "/tmp/x.log");
  EXPECT_TRUE(settings.at("log_info").bool_param());
  EXPECT_EQ(settings.at("log_warning").parameter_choice_case(),
            inference::LogSettingsResponse::SettingValue::kBoolParam);
  EXPECT_FALSE(settings.at("log_warning").bool_param());
  EXPECT_EQ(settings.at("log_verbose_level").uint32_param(), 2u);
  EXPECT_EQ(settings.at("log_format").string_param(), "default");
}

TEST(LogSettingsHandlerTest, UnrepresentableDocumentIsInternal) {
  inference::LogSettingsResponse response;
  EXPECT_EQ(LogSettingsFromJson("[]", &response).code(), Status::Code::kInternal);
  EXPECT_EQ(LogSettingsFromJson(R"({"x":-1})", &response).code(), Status::Code::kInternal);
}

// A server on the (empty) repository `repo`, logging to `log_file`, or to
// stderr when it is null.
INFERD_Server* NewServer(const std::filesystem::path& repo, const char* log_file) {
  INFERD_ServerOptions* options = nullptr;
  EXPECT_EQ(INFERD_ServerOptionsNew(&options), nullptr);
  EXPECT_EQ(INFERD_ServerOptionsAddModelRepositoryPath(options, repo.c_str()), nullptr);
  if (log_file != nullptr) {
    EXPECT_EQ(INFERD_ServerOptionsSetLogFile(options, log_file), nullptr);
  }
  INFERD_Server* server = nullptr;
  EXPECT_EQ(INFERD_ServerNew(&server, options), nullptr);
  INFERD_ServerOptionsDelete(options);
  return server;
}

class LogSettingsRpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "inferd-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    std::filesystem::create_directory(dir_ / "repo");
    log_path_ = (dir_ / "server.log").string();
    server_ = NewServer(dir_ / "repo", log_path_.c_str());
    ASSERT_NE(server_, nullptr);
  }
  void TearDown() override {
    if (server_ != nullptr) INFERD_ServerDelete(server_);
    if (dir_.empty()) return;
    // Log settings belong to the process and the last server created sets
    // them: one with default options gives later tests the defaults back.
    if (INFERD_Server* defaults = NewServer(dir_ / "repo", nullptr)) INFERD_ServerDelete(defaults);
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  inference::LogSettingsResponse Read() {
    inference::LogSettingsResponse response;
    EXPECT_TRUE(LogSettings(server_, inference::LogSettingsRequest(), &response).ok());
    return response;
  }

  std::filesystem::path dir_;
  std::string log_path_;
  INFERD_Server* server_ = nullptr;
};

TEST_F(LogSettingsRpcTest, LogFileChangeIsUnimplementedAndChangesNothing) {
  for (const std::string& other : {std::string(""), (dir_ / "other.log").string()}) {
    inference::LogSettingsRequest request;
    (*request.mutable_settings())["log_file"].set_string_param(other);
    (*request.mutable_settings())["log_verbose_level"].set_uint32_param(2);
    inference::LogSettingsResponse response;
    const Status status = LogSettings(server_, request, &response);
    EXPECT_EQ(status.code(), Status::Code::kUnsupported) << other;
    EXPECT_NE(status.message().find("--log-file"), std::string::npos)
        << status.message();
    const inference::LogSettingsResponse now = Read();
    EXPECT_EQ(now.settings().at("log_file").string_param(), log_path_);
    EXPECT_EQ(now.settings().at("log_verbose_level").uint32_param(), 0u);
  }
}

TEST_F(LogSettingsRpcTest, SameLogFileIsAccepted) {
  inference::LogSettingsRequest request;
  (*request.mutable_settings())["log_file"].set_string_param(log_path_);
  (*request.mutable_settings())["log_verbose_level"].set_uint32_param(2);
  inference::LogSettingsResponse response;
  ASSERT_TRUE(LogSettings(server_, request, &response).ok());
  EXPECT_EQ(response.settings().at("log_file").string_param(), log_path_);
  EXPECT_EQ(response.settings().at("log_verbose_level").uint32_param(), 2u);
}

}  // namespace
}  // namespace inferd::grpc_frontend

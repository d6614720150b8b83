// Conversions between the LogSettings messages and the server's JSON, and the
// RPC against a server: a log file change is UNIMPLEMENTED.
#include "grpc/log_settings_handler.h"

#include <gtest/gtest.h>

#include "core/common/logging.h"
#include "core/test_util/temp_dir.h"

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

class LogSettingsRpcTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.MakeDir("repo");
    log_path_ = (dir_.path() / "server.log").string();
    INFERD_ServerOptions* options = nullptr;
    ASSERT_EQ(INFERD_ServerOptionsNew(&options), nullptr);
    const std::string repo = (dir_.path() / "repo").string();
    ASSERT_EQ(INFERD_ServerOptionsAddModelRepositoryPath(options, repo.c_str()), nullptr);
    ASSERT_EQ(INFERD_ServerOptionsSetLogFile(options, log_path_.c_str()), nullptr);
    ASSERT_EQ(INFERD_ServerNew(&server_, options), nullptr);
    INFERD_ServerOptionsDelete(options);
  }
  void TearDown() override {
    EXPECT_TRUE(ConfigureLogging(inferd::LogSettings()).ok());  // defaults for later tests
    INFERD_ServerDelete(server_);
  }

  inference::LogSettingsResponse Read() {
    inference::LogSettingsResponse response;
    EXPECT_TRUE(LogSettings(server_, inference::LogSettingsRequest(), &response).ok());
    return response;
  }

  TempDir dir_;
  std::string log_path_;
  INFERD_Server* server_ = nullptr;
};

TEST_F(LogSettingsRpcTest, LogFileChangeIsUnimplementedAndChangesNothing) {
  for (const std::string& other : {std::string(""), (dir_.path() / "other.log").string()}) {
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

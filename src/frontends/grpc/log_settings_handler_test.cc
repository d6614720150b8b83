// Conversions between the LogSettings messages and the server's JSON.
#include "frontends/grpc/log_settings_handler.h"

#include <gtest/gtest.h>

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
  EXPECT_EQ(LogSettingsFromJson("[]", &response).error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_EQ(LogSettingsFromJson(R"({"x":-1})", &response).error_code(),
            grpc::StatusCode::INTERNAL);
}

}  // namespace
}  // namespace inferd::grpc_frontend

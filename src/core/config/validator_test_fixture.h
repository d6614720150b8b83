// Test-only: a valid normalized config to change one field of, and a check
// that an error names the model, the file and the field.
#ifndef INFERD_CORE_CONFIG_VALIDATOR_TEST_FIXTURE_H_
#define INFERD_CORE_CONFIG_VALIDATOR_TEST_FIXTURE_H_

#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "core/config/config_context.h"
#include "core/config/model_config_normalizer.h"
#include "core/config/model_config_validator.h"

namespace inferd {

class ConfigValidatorFixture : public ::testing::Test {
 protected:
  static constexpr std::string_view kPrefix = "model 'simple' (/repo/simple/config.pbtxt): ";

  // The base config with `text` merged over it (singular fields replaced,
  // repeated ones appended), then normalized.
  inference::ModelConfig With(std::string_view text) {
    inference::ModelConfig config;
    EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
                                                                name: "simple"
                                                                backend: "identity"
                                                                max_batch_size: 8 input
                                                                [ {
                                                                  name: "INPUT0"
                                                                  data_type: TYPE_FP32
                                                                  dims: [ 16 ]
                                                                }] output
                                                                [ {
                                                                  name: "OUTPUT0"
                                                                  data_type: TYPE_FP32
                                                                  dims: [ 16 ]
                                                                }]
                                                              )pb",
                                                              &config));
    EXPECT_TRUE(google::protobuf::TextFormat::MergeFromString(std::string(text), &config)) << text;
    EXPECT_TRUE(NormalizeModelConfig(ctx_, &config).ok());
    return config;
  }

  void ExpectValid(const inference::ModelConfig& config) {
    const Status status = ValidateModelConfig(ctx_, config);
    EXPECT_TRUE(status.ok()) << status.ToString();
  }

  // The error starts with the model, file and `field`, and says `problem`.
  void ExpectError(const inference::ModelConfig& config, const std::string& field,
                   const std::string& problem) {
    const Status status = ValidateModelConfig(ctx_, config);
    ASSERT_FALSE(status.ok()) << "expected an error at " << field;
    EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
    EXPECT_THAT(status.message(), ::testing::StartsWith(std::string(kPrefix) + field + ": "));
    EXPECT_THAT(status.message(), ::testing::HasSubstr(problem));
  }

  ConfigContext ctx_{"simple", "", "/repo/simple/config.pbtxt", 0};
};

}  // namespace inferd

#endif  // INFERD_CORE_CONFIG_VALIDATOR_TEST_FIXTURE_H_

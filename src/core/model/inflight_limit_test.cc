#include "core/model/inflight_limit.h"

#include <google/protobuf/text_format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace inferd {
namespace {

using ::testing::HasSubstr;

inference::ModelConfig Config(const std::string& text) {
  inference::ModelConfig config;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
  return config;
}

TEST(InflightLimitTest, AppliesToModelsWithoutABoundedQueue) {
  EXPECT_EQ(InflightLimitFor(64, Config("")), 64u);
  EXPECT_EQ(InflightLimitFor(64, Config("dynamic_batching {}")), 64u);
  EXPECT_EQ(InflightLimitFor(64, Config("sequence_batching {}")), 64u);
  EXPECT_EQ(InflightLimitFor(0, Config("")), 0u);
}

TEST(InflightLimitTest, ABoundedDynamicBatcherQueueDecidesItself) {
  EXPECT_EQ(InflightLimitFor(64, Config("dynamic_batching { default_queue_policy { "
                                        "max_queue_size: 500 } }")),
            0u);
}

TEST(InflightLimitTest, OneUnboundedPriorityLevelKeepsTheCap) {
  const std::string levels =
      "dynamic_batching { priority_levels: 2 default_queue_policy { max_queue_size: 5 } ";
  EXPECT_EQ(InflightLimitFor(64, Config(levels + "}")), 0u);
  EXPECT_EQ(InflightLimitFor(64, Config(levels + "priority_queue_policy { key: 2 value { "
                                                 "max_queue_size: 0 } } }")),
            64u);
}

TEST(InflightLimitTest, TheRefusalNamesModelLimitAndFlag) {
  const Status status = InflightLimitReached("slow", 8);
  EXPECT_EQ(status.code(), Status::Code::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr("model 'slow'"));
  EXPECT_THAT(status.message(), HasSubstr("--model-max-inflight-requests=8"));
}

}  // namespace
}  // namespace inferd

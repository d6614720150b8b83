#include "run_settings.h"

#include <gtest/gtest.h>

namespace inferd::pytorch {
namespace {

TEST(RunSettingsTest, DefaultsShareTheCoresAmongInstances) {
  ModelSettings model;
  model.instance_count = 3;
  RunSettings run;
  ASSERT_EQ(ResolveRunSettings(model, 8, &run), "");
  EXPECT_EQ(run.intra_op_threads, 2);
  EXPECT_EQ(run.inter_op_threads, 0);
  EXPECT_TRUE(run.inference_mode);
  EXPECT_TRUE(run.optimized_execution);
  model.instance_count = 16;
  ASSERT_EQ(ResolveRunSettings(model, 8, &run), "");
  EXPECT_EQ(run.intra_op_threads, 1);
}

TEST(RunSettingsTest, ReadsTritonsParameters) {
  ModelSettings model;
  model.parameters = {{"INTRA_OP_THREAD_COUNT", "3"},
                      {"INTER_OP_THREAD_COUNT", "2"},
                      {"INFERENCE_MODE", "False"},
                      {"DISABLE_OPTIMIZED_EXECUTION", "true"},
                      {"ENABLE_NVFUSER", "1"}};
  RunSettings run;
  ASSERT_EQ(ResolveRunSettings(model, 8, &run), "");
  EXPECT_EQ(run.intra_op_threads, 3);
  EXPECT_EQ(run.inter_op_threads, 2);
  EXPECT_FALSE(run.inference_mode);
  EXPECT_FALSE(run.optimized_execution);
}

TEST(RunSettingsTest, ZeroThreadsMeansTheDefault) {
  ModelSettings model;
  model.parameters = {{"INTRA_OP_THREAD_COUNT", "0"}};
  RunSettings run;
  ASSERT_EQ(ResolveRunSettings(model, 4, &run), "");
  EXPECT_EQ(run.intra_op_threads, 4);
}

TEST(RunSettingsTest, MalformedValuesNameTheParameter) {
  ModelSettings model;
  RunSettings run;
  model.parameters = {{"INTRA_OP_THREAD_COUNT", "many"}};
  EXPECT_EQ(ResolveRunSettings(model, 4, &run),
            "parameter 'INTRA_OP_THREAD_COUNT' is 'many', not a count >= 0");
  model.parameters = {{"INTER_OP_THREAD_COUNT", "-1"}};
  EXPECT_NE(ResolveRunSettings(model, 4, &run).find("INTER_OP_THREAD_COUNT"), std::string::npos);
  model.parameters = {{"INFERENCE_MODE", "maybe"}};
  EXPECT_EQ(ResolveRunSettings(model, 4, &run),
            "parameter 'INFERENCE_MODE' is 'maybe', not true/false");
  model.parameters = {{"ENABLE_JIT_PROFILING", "sometimes"}};
  EXPECT_NE(ResolveRunSettings(model, 4, &run).find("ENABLE_JIT_PROFILING"), std::string::npos);
}

}  // namespace
}  // namespace inferd::pytorch

// Tests of session settings from model parameters (Triton's names).
#include "session_settings.h"

#include <gtest/gtest.h>

namespace inferd::onnxruntime {
namespace {

TEST(SessionSettingsTest, DefaultThreadsShareTheCoresAmongInstances) {
  ModelSettings model;
  model.instance_count = 3;
  SessionSettings settings;
  ASSERT_EQ(ResolveSessionSettings(model, 16, &settings), "");
  EXPECT_EQ(settings.intra_op_threads, 5);
  EXPECT_EQ(settings.inter_op_threads, 5);
  EXPECT_EQ(settings.execution_mode, ORT_SEQUENTIAL);
  EXPECT_EQ(settings.optimization_level, ORT_ENABLE_ALL);

  model.instance_count = 8;
  ASSERT_EQ(ResolveSessionSettings(model, 4, &settings), "");
  EXPECT_EQ(settings.intra_op_threads, 1);  // never 0, which would mean "all cores"
}

TEST(SessionSettingsTest, ReadsTritonParameters) {
  ModelSettings model;
  model.parameters = {{"intra_op_thread_count", "3"},
                      {"inter_op_thread_count", "2"},
                      {"execution_mode", "1"},
                      {"enable_mem_arena", "0"},
                      {"enable_mem_pattern", "true"},
                      {"session.intra_op.allow_spinning", "0"},
                      {"unrelated", "x"}};
  model.graph_level = 1;
  SessionSettings settings;
  ASSERT_EQ(ResolveSessionSettings(model, 16, &settings), "");
  EXPECT_EQ(settings.intra_op_threads, 3);
  EXPECT_EQ(settings.inter_op_threads, 2);
  EXPECT_EQ(settings.execution_mode, ORT_PARALLEL);
  EXPECT_EQ(settings.optimization_level, ORT_ENABLE_EXTENDED);
  EXPECT_EQ(settings.mem_arena, false);
  EXPECT_EQ(settings.mem_pattern, true);
  // The model's own spinning entry, then inferd's default for the other one.
  ASSERT_EQ(settings.config_entries.size(), 2u);
  EXPECT_EQ(settings.config_entries[0],
            (std::pair<std::string, std::string>{"session.intra_op.allow_spinning", "0"}));
  EXPECT_EQ(settings.config_entries[1],
            (std::pair<std::string, std::string>{"session.inter_op.allow_spinning", "0"}));
}

TEST(SessionSettingsTest, ThreadSpinningIsOffUnlessTheModelTurnsItOn) {
  ModelSettings model;
  SessionSettings settings;
  ASSERT_EQ(ResolveSessionSettings(model, 8, &settings), "");
  EXPECT_EQ(settings.config_entries,
            (std::vector<std::pair<std::string, std::string>>{
                {"session.intra_op.allow_spinning", "0"},
                {"session.inter_op.allow_spinning", "0"}}));
  model.parameters = {{"session.intra_op.allow_spinning", "1"}};
  ASSERT_EQ(ResolveSessionSettings(model, 8, &settings), "");
  EXPECT_EQ(settings.config_entries[0].second, "1");
  EXPECT_EQ(settings.config_entries.size(), 2u);
}

TEST(SessionSettingsTest, MapsGraphLevelsAsTriton) {
  ModelSettings model;
  SessionSettings settings;
  model.graph_level = -1;
  ASSERT_EQ(ResolveSessionSettings(model, 1, &settings), "");
  EXPECT_EQ(settings.optimization_level, ORT_ENABLE_BASIC);
  model.graph_level = 2;
  ASSERT_EQ(ResolveSessionSettings(model, 1, &settings), "");
  EXPECT_EQ(settings.optimization_level, ORT_DISABLE_ALL);
  model.graph_level = 0;
  ASSERT_EQ(ResolveSessionSettings(model, 1, &settings), "");
  EXPECT_EQ(settings.optimization_level, ORT_ENABLE_ALL);
}

TEST(SessionSettingsTest, NamesAMalformedParameter) {
  ModelSettings model;
  SessionSettings settings;
  model.parameters = {{"intra_op_thread_count", "four"}};
  EXPECT_NE(ResolveSessionSettings(model, 4, &settings).find("'intra_op_thread_count' is 'four'"),
            std::string::npos);
  model.parameters = {{"execution_mode", "2"}};
  EXPECT_NE(ResolveSessionSettings(model, 4, &settings).find("execution_mode"), std::string::npos);
}

TEST(SessionSettingsTest, SharedPoolsOnlyWhereTheyBehaveAsOwnPools) {
  ModelSettings model;  // one instance: every core, sequential, no spinning
  SessionSettings settings;
  ASSERT_EQ(ResolveSessionSettings(model, 4, &settings), "");
  EXPECT_TRUE(settings.shared_pools);
  model.parameters = {{"intra_op_thread_count", "4"}};  // the same count, said outright
  ASSERT_EQ(ResolveSessionSettings(model, 4, &settings), "");
  EXPECT_TRUE(settings.shared_pools);
  for (auto parameter : std::vector<std::pair<std::string, std::string>>{
           {"intra_op_thread_count", "2"},
           {"execution_mode", "1"},
           {"session.intra_op.allow_spinning", "1"},
           {"session.inter_op.allow_spinning", "1"}}) {
    model.parameters = {parameter};
    ASSERT_EQ(ResolveSessionSettings(model, 4, &settings), "");
    EXPECT_FALSE(settings.shared_pools) << parameter.first;
  }
  model.parameters.clear();
  model.instance_count = 2;  // two threads each: pools of their own
  ASSERT_EQ(ResolveSessionSettings(model, 4, &settings), "");
  EXPECT_FALSE(settings.shared_pools);
}

TEST(SessionSettingsTest, InstancesShareASessionWithoutPoolsOfItsOwn) {
  ModelSettings model;
  SessionSettings settings;
  model.instance_count = 2;  // one thread each on two cores: no pools
  ASSERT_EQ(ResolveSessionSettings(model, 2, &settings), "");
  EXPECT_TRUE(settings.share_session);
  model.instance_count = 1;  // the shared pools
  ASSERT_EQ(ResolveSessionSettings(model, 2, &settings), "");
  EXPECT_TRUE(settings.share_session);
  model.instance_count = 2;  // two threads each on four cores: pools of their own
  ASSERT_EQ(ResolveSessionSettings(model, 4, &settings), "");
  EXPECT_FALSE(settings.share_session);
  model.parameters = {{"share_session_between_instances", "true"}};
  ASSERT_EQ(ResolveSessionSettings(model, 4, &settings), "");
  EXPECT_TRUE(settings.share_session);
  model.instance_count = 1;
  model.parameters = {{"share_session_between_instances", "false"}};
  ASSERT_EQ(ResolveSessionSettings(model, 2, &settings), "");
  EXPECT_FALSE(settings.share_session);
  model.parameters = {{"share_session_between_instances", "sometimes"}};
  EXPECT_NE(ResolveSessionSettings(model, 2, &settings).find("share_session_between_instances"),
            std::string::npos);
}

}  // namespace
}  // namespace inferd::onnxruntime

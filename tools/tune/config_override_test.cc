// Reading a configuration's tunable fields, overriding them, and the
// config.pbtxt lines, on configuration JSON as the server answers it.
#include "tune/config_override.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

namespace inferd::tune {
namespace {

// The shape of inferd's GET /v2/models/onnx_mlp/config, trimmed.
constexpr const char* kMlp = R"({"name":"onnx_mlp","platform":"onnxruntime_onnx","max_batch_size":64,
  "input":[{"name":"INPUT0","data_type":"TYPE_FP32","dims":[512]}],
  "dynamic_batching":{"preferred_batch_size":[64],"max_queue_delay_microseconds":4000,"preserve_ordering":false},
  "instance_group":[{"name":"onnx_mlp_0","kind":"KIND_CPU","count":1,"gpus":[]}]})";

rapidjson::Document Parse(const std::string& json) {
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  EXPECT_FALSE(doc.HasParseError()) << json;
  return doc;
}

TEST(ConfigOverrideTest, ReadsTheCurrentSetting) {
  ConfigFacts facts;
  ASSERT_EQ(ReadConfigFacts("onnx_mlp", kMlp, &facts), "");
  EXPECT_EQ(facts.setting, (Setting{64, 4000, 1}));
  EXPECT_TRUE(facts.batches);
  EXPECT_TRUE(facts.dynamic_batching);
  // 64-bit fields may come as strings (protobuf's JSON mapping).
  ASSERT_EQ(ReadConfigFacts("m", R"({"max_batch_size":8,"dynamic_batching":{"max_queue_delay_microseconds":"250"},
    "instance_group":[{"count":3}]})", &facts), "");
  EXPECT_EQ(facts.setting, (Setting{8, 250, 3}));
}

TEST(ConfigOverrideTest, RefusesWhatItCannotTune) {
  ConfigFacts facts;
  EXPECT_EQ(ReadConfigFacts("ens", R"({"platform":"ensemble","instance_group":[{"count":1}]})", &facts),
            "model 'ens' is an ensemble: tune its composing models one by one");
  EXPECT_NE(ReadConfigFacts("seq", R"({"sequence_batching":{},"instance_group":[{"count":1}]})", &facts)
                .find("sequence batcher"), std::string::npos);
  EXPECT_NE(ReadConfigFacts("m", R"({"max_batch_size":4})", &facts).find("no instance_group"), std::string::npos);
  EXPECT_NE(ReadConfigFacts("m", "not json", &facts).find("not a JSON object"), std::string::npos);
}

TEST(ConfigOverrideTest, AppliesTheSettingAndKeepsEverythingElse) {
  std::string json;
  ASSERT_EQ(OverrideConfig(kMlp, {16, 500, 2}, &json), "");
  const rapidjson::Document doc = Parse(json);
  EXPECT_EQ(doc["max_batch_size"].GetInt(), 16);
  EXPECT_EQ(doc["dynamic_batching"]["max_queue_delay_microseconds"].GetInt(), 500);
  // The preferred size above the new maximum goes; the server fills the list in again.
  EXPECT_TRUE(doc["dynamic_batching"]["preferred_batch_size"].Empty());
  EXPECT_FALSE(doc["dynamic_batching"]["preserve_ordering"].GetBool());
  EXPECT_EQ(doc["instance_group"][0]["count"].GetInt(), 2);
  EXPECT_STREQ(doc["instance_group"][0]["kind"].GetString(), "KIND_CPU");
  EXPECT_STREQ(doc["input"][0]["name"].GetString(), "INPUT0");
  ConfigFacts facts;
  ASSERT_EQ(ReadConfigFacts("onnx_mlp", json, &facts), "");
  EXPECT_EQ(facts.setting, (Setting{16, 500, 2}));
}

TEST(ConfigOverrideTest, AddsTheDynamicBatcherWhenMissing) {
  std::string json;
  ASSERT_EQ(OverrideConfig(R"({"max_batch_size":8,"instance_group":[{"count":1},{"count":1,"kind":"KIND_GPU"}]})",
                           {4, 100, 3}, &json), "");
  const rapidjson::Document doc = Parse(json);
  EXPECT_EQ(doc["dynamic_batching"]["max_queue_delay_microseconds"].GetInt(), 100);
  EXPECT_EQ(doc["instance_group"][0]["count"].GetInt(), 3);
  EXPECT_EQ(doc["instance_group"][1]["count"].GetInt(), 3);
}

TEST(ConfigOverrideTest, AModelThatDoesNotBatchKeepsItsBatchingFields) {
  std::string json;
  ASSERT_EQ(OverrideConfig(R"({"max_batch_size":0,"instance_group":[{"count":1}]})", {0, 0, 2}, &json), "");
  const rapidjson::Document doc = Parse(json);
  EXPECT_EQ(doc["max_batch_size"].GetInt(), 0);
  EXPECT_FALSE(doc.HasMember("dynamic_batching"));
  EXPECT_EQ(doc["instance_group"][0]["count"].GetInt(), 2);
}

TEST(ConfigOverrideTest, TheSnippetNamesTheTunedFields) {
  EXPECT_EQ(ConfigSnippet(kMlp, {32, 2000, 2}),
            "max_batch_size: 32\n"
            "dynamic_batching { max_queue_delay_microseconds: 2000 }\n"
            "instance_group [ { count: 2, kind: KIND_CPU } ]\n");
  // Preferred sizes below the maximum are kept; the maximum alone is implied.
  const std::string with_preferred = R"({"max_batch_size":64,"dynamic_batching":{"preferred_batch_size":[4,8,64]},
    "instance_group":[{"count":1,"kind":"KIND_CPU"}]})";
  EXPECT_EQ(ConfigSnippet(with_preferred, {16, 0, 1}),
            "max_batch_size: 16\n"
            "dynamic_batching {\n  preferred_batch_size: [ 4, 8 ]\n  max_queue_delay_microseconds: 0\n}\n"
            "instance_group [ { count: 1, kind: KIND_CPU } ]\n");
  EXPECT_EQ(ConfigSnippet(R"({"max_batch_size":0,"instance_group":[{"count":1}]})", {0, 0, 4}),
            "instance_group [ { count: 4 } ]\n");
}

}  // namespace
}  // namespace inferd::tune

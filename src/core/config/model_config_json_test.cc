#include "core/config/model_config_json.h"

#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>

#include "core/config/config_context.h"
#include "core/config/model_config_normalizer.h"

namespace inferd {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

inference::ModelConfig FromText(const std::string& text) {
  inference::ModelConfig config;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
  return config;
}

rapidjson::Document Render(const inference::ModelConfig& config) {
  rapidjson::Document doc;
  const std::string json = ModelConfigToJson(config);
  doc.Parse(json.c_str());
  EXPECT_FALSE(doc.HasParseError()) << json;
  return doc;
}

// A config that uses most of the schema.
constexpr char kRichConfig[] = R"pb(
    name: "rich"
    platform: "onnxruntime_onnx"
    max_batch_size: 8 input
    [ {
      name: "IN"
      data_type: TYPE_FP32
      format: FORMAT_NCHW
      dims: [ 3, -1, 224 ]
      reshape { shape: [ 3, -1, 224 ] }
    }] output
    [ {
      name: "OUT"
      data_type: TYPE_INT64
      dims: [ 1 ]
      reshape { shape: [] }
      label_filename: "l.txt"
    }]
    version_policy { specific { versions: [ 1, 9007199254740993 ] } }
    dynamic_batching {
      preferred_batch_size: [ 4, 8 ]
      max_queue_delay_microseconds: 18446744073709551615
      priority_levels: 2
      default_priority_level: 1
      priority_queue_policy {
        key: 2
        value { timeout_action: DELAY default_timeout_microseconds: 7 }
      }
      priority_queue_policy {
        key: 1
        value { max_queue_size: 3 }
      }
    } instance_group
    [ {
      count: 2
      kind: KIND_CPU
      rate_limiter { resources
                     [ { name: "R1" count: 4 }] }
    }]
    parameters {
      key: "b"
      value { string_value: "2" }
    }
    parameters {
      key: "a"
      value { string_value: "1" }
    } model_warmup
    [ {
      name: "w"
      batch_size: 1
      inputs {
        key: "IN"
        value {
          data_type: TYPE_FP32
          dims: [ 3, 4, 224 ]
          random_data: true
        }
      }
    }]
    optimization {
      cuda {
        graphs: true graph_spec
        [ {
          batch_size: 1
          input {
            key: "IN"
            value { dim: [ 3 ] }
          }
        }]
      }
    }
)pb";

// kRichConfig, normalized as the endpoint shows it.
inference::ModelConfig RichConfig() {
  inference::ModelConfig config = FromText(kRichConfig);
  EXPECT_TRUE(NormalizeModelConfig(ConfigContext{"rich", "", "", 0}, &config).ok());
  return config;
}

TEST(ModelConfigJsonTest, DimsAndSixtyFourBitIntegersAreNumbers) {
  rapidjson::Document doc = Render(RichConfig());
  const auto& dims = doc["input"][0]["dims"];
  ASSERT_TRUE(dims.IsArray());
  ASSERT_EQ(dims.Size(), 3u);
  EXPECT_EQ(dims[1].GetInt64(), -1);
  EXPECT_EQ(dims[2].GetInt64(), 224);
  EXPECT_EQ(doc["version_policy"]["specific"]["versions"][1].GetInt64(), 9007199254740993);
  EXPECT_EQ(doc["dynamic_batching"]["max_queue_delay_microseconds"].GetUint64(),
            18446744073709551615u);
  EXPECT_TRUE(doc["output"][0]["reshape"]["shape"].IsArray());
  EXPECT_EQ(doc["output"][0]["reshape"]["shape"].Size(), 0u);
}

TEST(ModelConfigJsonTest, EnumsAreWrittenByName) {
  rapidjson::Document doc = Render(RichConfig());
  EXPECT_STREQ(doc["input"][0]["data_type"].GetString(), "TYPE_FP32");
  EXPECT_STREQ(doc["input"][0]["format"].GetString(), "FORMAT_NCHW");
  EXPECT_STREQ(doc["instance_group"][0]["kind"].GetString(), "KIND_CPU");
  EXPECT_STREQ(doc["optimization"]["priority"].GetString(), "PRIORITY_DEFAULT");
  EXPECT_STREQ(doc["output"][0]["data_type"].GetString(), "TYPE_INT64");
}

TEST(ModelConfigJsonTest, DefaultScalarsAndEmptyRepeatedFieldsArePresent) {
  rapidjson::Document doc = Render(FromText("name: \"m\" backend: \"identity\""));
  EXPECT_STREQ(doc["platform"].GetString(), "");
  EXPECT_STREQ(doc["runtime"].GetString(), "");
  EXPECT_EQ(doc["max_batch_size"].GetInt(), 0);
  EXPECT_TRUE(doc["input"].IsArray() && doc["input"].Empty());
  EXPECT_TRUE(doc["batch_input"].IsArray());
  EXPECT_TRUE(doc["model_warmup"].IsArray());
  EXPECT_TRUE(doc["cc_model_filenames"].IsObject() && doc["cc_model_filenames"].ObjectEmpty());
  EXPECT_TRUE(doc["parameters"].IsObject());
  EXPECT_STREQ(doc["default_model_filename"].GetString(), "");
}

TEST(ModelConfigJsonTest, UnsetMessagesAreLeftOut) {
  rapidjson::Document doc = Render(FromText("name: \"m\" input [ { name: \"x\" dims: [ 1 ] } ]"));
  EXPECT_FALSE(doc.HasMember("version_policy"));
  EXPECT_FALSE(doc.HasMember("optimization"));
  EXPECT_FALSE(doc.HasMember("response_cache"));
  EXPECT_FALSE(doc["input"][0].HasMember("reshape"));
  EXPECT_FALSE(doc["input"][0]["is_shape_tensor"].GetBool());
}

TEST(ModelConfigJsonTest, OnlyTheChosenMemberOfAOneofAppears) {
  rapidjson::Document doc = Render(RichConfig());
  EXPECT_TRUE(doc.HasMember("dynamic_batching"));
  EXPECT_FALSE(doc.HasMember("sequence_batching"));
  EXPECT_FALSE(doc.HasMember("ensemble_scheduling"));
  EXPECT_FALSE(doc["version_policy"].HasMember("latest"));
  const auto& input = doc["model_warmup"][0]["inputs"]["IN"];
  EXPECT_TRUE(input["random_data"].GetBool());
  EXPECT_FALSE(input.HasMember("zero_data"));
  EXPECT_FALSE(input.HasMember("input_data_file"));
  rapidjson::Document all = Render(FromText("version_policy { all { } }"));
  EXPECT_TRUE(all["version_policy"]["all"].IsObject());
}

TEST(ModelConfigJsonTest, MapsAreObjectsWithSortedKeys) {
  const std::string json = ModelConfigToJson(RichConfig());
  EXPECT_THAT(json,
              HasSubstr(R"("parameters":{"a":{"string_value":"1"},"b":{"string_value":"2"}})"));
  EXPECT_THAT(json, HasSubstr(R"("priority_queue_policy":{"1":{"timeout_action":"REJECT")"));
  rapidjson::Document doc = Render(RichConfig());
  EXPECT_STREQ(doc["dynamic_batching"]["priority_queue_policy"]["2"]["timeout_action"].GetString(),
               "DELAY");
}

TEST(ModelConfigJsonTest, FloatsAreShortestNumbers) {
  const std::string json = ModelConfigToJson(FromText(
      "sequence_batching { direct { minimum_slot_utilization: 0.1 } control_input [ { name: \"S\" "
      "control [ { fp32_false_true: [ 0, 1.5 ] } ] } ] }"));
  EXPECT_THAT(json, HasSubstr(R"("minimum_slot_utilization":0.1)"));
  EXPECT_THAT(json, HasSubstr(R"("fp32_false_true":[0,1.5])"));
}

TEST(ModelConfigJsonTest, FieldsFollowTheSchemaOrder) {
  const std::string json = ModelConfigToJson(FromText("name: \"m\" backend: \"identity\""));
  EXPECT_THAT(json, StartsWith(R"({"name":"m","platform":"","backend":"identity","runtime":"",)"
                               R"("max_batch_size":0,"input":[],"output":[],)"));
}

TEST(ModelConfigJsonTest, StringsAreEscaped) {
  rapidjson::Document doc = Render(FromText(R"pb(name: "a\"b\\c\n")pb"));
  EXPECT_STREQ(doc["name"].GetString(), "a\"b\\c\n");
}

TEST(ModelConfigJsonTest, RoundTripGivesTheSameMessage) {
  const inference::ModelConfig original = RichConfig();
  inference::ModelConfig back;
  const Status status = ModelConfigFromJson(ModelConfigToJson(original), &back);
  ASSERT_TRUE(status.ok()) << status.ToString();
  std::string diff;
  google::protobuf::util::MessageDifferencer differencer;
  differencer.ReportDifferencesToString(&diff);
  EXPECT_TRUE(differencer.Compare(original, back)) << diff;
}

TEST(ModelConfigJsonTest, RoundTripOfSequenceAndEnsembleConfigs) {
  for (const char* text :
       {"name: \"s\" sequence_batching { max_sequence_idle_microseconds: 5 oldest { "
        "max_candidate_sequences: 4 } state [ { input_name: \"i\" output_name: \"o\" dims: [ -1 ] "
        "initial_state [ { name: \"z\" zero_data: true } ] } ] }",
        "name: \"i\" sequence_batching { iterative_sequence: true direct { } }",
        "name: \"e\" platform: \"ensemble\" ensemble_scheduling { step [ { model_name: \"a\" "
        "model_version: -1 input_map { key: \"x\" value: \"y\" } } ] }"}) {
    const inference::ModelConfig original = FromText(text);
    inference::ModelConfig back;
    ASSERT_TRUE(ModelConfigFromJson(ModelConfigToJson(original), &back).ok());
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(original, back)) << text;
  }
  // Triton's field name, as a client's config override or the config endpoint has it.
  EXPECT_THAT(ModelConfigToJson(FromText("name: \"i\" sequence_batching { iterative_sequence: "
                                         "true }")),
              HasSubstr("\"iterative_sequence\":true"));
}

TEST(ModelConfigJsonTest, FromJsonAcceptsCamelCaseAndStringIntegers) {
  inference::ModelConfig config;
  ASSERT_TRUE(
      ModelConfigFromJson(R"({"name":"m","maxBatchSize":4,"input":[{"dims":["2","-1"]}]})", &config)
          .ok());
  EXPECT_EQ(config.max_batch_size(), 4);
  EXPECT_THAT(config.input(0).dims(), ::testing::ElementsAre(2, -1));
}

TEST(ModelConfigJsonTest, FromJsonRejectsUnknownFieldsNamingThem) {
  inference::ModelConfig config;
  const Status status = ModelConfigFromJson(R"({"name":"m","max_batch":4})", &config);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_THAT(status.message(), HasSubstr("max_batch"));
}

TEST(ModelConfigJsonTest, FromJsonRejectsMalformedJson) {
  inference::ModelConfig config;
  const Status status = ModelConfigFromJson(R"({"name": )", &config);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(), StartsWith("invalid model configuration JSON: "));
}

}  // namespace
}  // namespace inferd

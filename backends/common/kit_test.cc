// Tests of the compiled backends' batching kit that need no server: element
// type tables, the common model settings, parameter values and shapes.
#include <gtest/gtest.h>

#include <array>

#include "common/element_type.h"
#include "common/model_settings.h"
#include "common/parameter_values.h"
#include "common/shapes.h"

namespace inferd::backend_common {
namespace {

constexpr std::array<ElementType, 2> kTestTypes = {{
    {INFERD_TYPE_FP32, 7, "TYPE_FP32", "float", 4},
    {INFERD_TYPE_BYTES, -1, "TYPE_STRING", "str", 0},
}};
constexpr TypeTable kTable(kTestTypes);

std::string Refusal(const std::string& type_name) { return ", refused " + type_name; }

TEST(TypeTableTest, LooksUpByEveryKeyAndNeverMatchesNegativeNatives) {
  EXPECT_EQ(kTable.FromConfigName("TYPE_FP32"), &kTestTypes[0]);
  EXPECT_EQ(kTable.FromDataType(INFERD_TYPE_BYTES), &kTestTypes[1]);
  EXPECT_EQ(kTable.FromNative(7), &kTestTypes[0]);
  EXPECT_EQ(kTable.FromNative(-1), nullptr);
  EXPECT_EQ(kTable.FromConfigName("TYPE_INT8"), nullptr);
}

TEST(ReadModelSettingsTest, ReadsCommonFieldsAndReshape) {
  const TensorRules rules{&kTable, &Refusal, ""};
  ModelSettings settings;
  rapidjson::Document doc;
  ASSERT_EQ(ReadModelSettings(R"({"name": "m", "max_batch_size": "4",
      "input": [{"name": "x", "data_type": "TYPE_FP32", "dims": [4],
                 "reshape": {"shape": [2, 2]}}],
      "output": [{"name": "y", "data_type": "TYPE_STRING", "dims": [-1]}],
      "parameters": {"k": {"string_value": "v"}}, "instance_group": [{"count": 3}]})",
                              rules, &settings, &doc),
            "");
  EXPECT_EQ(settings.name, "m");
  EXPECT_TRUE(settings.batching());
  ASSERT_EQ(settings.inputs.size(), 1u);
  EXPECT_EQ(settings.inputs[0].reshape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(settings.outputs[0].type, &kTestTypes[1]);
  EXPECT_EQ(settings.parameters.at("k"), "v");
  EXPECT_EQ(settings.instance_count, 3);
  EXPECT_TRUE(doc.IsObject());
}

TEST(ReadModelSettingsTest, RefusesWhatTheRulesRefuse) {
  const TensorRules no_reshape{&kTable, &Refusal, ", not here"};
  ModelSettings settings;
  rapidjson::Document doc;
  EXPECT_EQ(ReadModelSettings(R"({"input": [{"name": "x", "data_type": "TYPE_INT8"}]})",
                              no_reshape, &settings, &doc),
            "input 'x' has data_type TYPE_INT8, refused TYPE_INT8");
  EXPECT_EQ(ReadModelSettings(R"({"output": [{"name": "y", "data_type": "TYPE_FP32",
                                  "dims": [4], "reshape": {"shape": [4]}}]})",
                              no_reshape, &settings, &doc),
            "output 'y' has a reshape, not here");
  EXPECT_EQ(ReadModelSettings("[]", no_reshape, &settings, &doc),
            "the model configuration is not a JSON object");
}

TEST(ParameterReaderTest, ReadsIntsAndSwitchesAndKeepsTheChosenRefusal) {
  const std::map<std::string, std::string> parameters = {
      {"n", "12"}, {"neg", "-3"}, {"on", "TRUE"}, {"off", "0"}, {"bad", "x"}, {"worse", "y"}};
  ParameterReader first(parameters, ParameterReader::Keep::kFirst);
  EXPECT_EQ(first.Int("n", "an int"), 12);
  EXPECT_EQ(first.Int("absent", "an int"), std::nullopt);
  EXPECT_EQ(first.Switch("on", "a switch"), true);
  EXPECT_EQ(first.Switch("off", "a switch"), false);
  EXPECT_EQ(first.error(), "");
  EXPECT_EQ(first.Int("neg", "a count", 0), std::nullopt);
  EXPECT_EQ(first.Switch("bad", "a switch"), std::nullopt);
  EXPECT_EQ(first.error(), "parameter 'neg' is '-3', not a count");
  ParameterReader last(parameters, ParameterReader::Keep::kLast);
  last.Int("bad", "an int");
  last.Switch("worse", "a switch");
  EXPECT_EQ(last.error(), "parameter 'worse' is 'y', not a switch");
}

TEST(ShapesTest, CountsAndPrints) {
  EXPECT_EQ(ElementCount(std::vector<int64_t>{2, 3}), 6);
  EXPECT_EQ(ElementCount(std::vector<int64_t>{}), 1);
  EXPECT_EQ(ShapeString(std::vector<int64_t>{2, -1, 3}), "[2,-1,3]");
  EXPECT_EQ(ShapeString(std::vector<int64_t>{}), "[]");
}

}  // namespace
}  // namespace inferd::backend_common

#include "common/config_json.h"

#include <gtest/gtest.h>

namespace inferd::backend_common {
namespace {

rapidjson::Document Parse(const char* json) {
  rapidjson::Document doc;
  doc.Parse(json);
  return doc;
}

TEST(ConfigJsonTest, IntegersComeAsNumbersOrDigitStrings) {
  auto doc = Parse(R"({"a": 7, "b": "-12", "c": "12x", "d": "", "e": 1.5, "f": "18446744073709551616"})");
  EXPECT_EQ(AsInt(doc["a"]), 7);
  EXPECT_EQ(AsInt(doc["b"]), -12);
  EXPECT_EQ(AsInt(doc["c"]), std::nullopt);
  EXPECT_EQ(AsInt(doc["d"]), std::nullopt);
  EXPECT_EQ(AsInt(doc["e"]), std::nullopt);
  EXPECT_EQ(AsInt(doc["f"]), std::nullopt);  // out of range, not clamped
}

TEST(ConfigJsonTest, MembersOfNonObjectsAreAbsent) {
  auto doc = Parse(R"({"s": "text", "n": 3, "list": [1]})");
  EXPECT_EQ(StringMember(doc, "s"), "text");
  EXPECT_EQ(StringMember(doc, "n"), "");
  EXPECT_EQ(Member(doc, "missing"), nullptr);
  EXPECT_EQ(Member(doc["list"], "s"), nullptr);
}

TEST(ConfigJsonTest, ParametersReadTheirStringValues) {
  auto doc = Parse(R"({"parameters": {"k": {"string_value": "v"}, "empty": {}}})");
  EXPECT_EQ(Parameter(doc, "k"), "v");
  EXPECT_EQ(Parameter(doc, "empty"), "");
  EXPECT_EQ(Parameter(doc, "absent"), std::nullopt);
  const auto all = Parameters(doc);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all.at("k"), "v");
  EXPECT_EQ(all.at("empty"), "");
}

TEST(ConfigJsonTest, DimsNameWhatIsWrong) {
  auto doc = Parse(R"({"good": [-1, "4"], "bad": [1, "x"], "scalar": 3})");
  std::vector<int64_t> dims;
  EXPECT_EQ(ParseDims(&doc["good"], "input 'x' dims", &dims), "");
  EXPECT_EQ(dims, (std::vector<int64_t>{-1, 4}));
  EXPECT_EQ(ParseDims(&doc["bad"], "input 'x' dims", &dims),
            "input 'x' dims holds a value that is not an integer");
  EXPECT_EQ(ParseDims(&doc["scalar"], "input 'x' dims", &dims), "input 'x' dims is not an array");
  EXPECT_EQ(ParseDims(nullptr, "input 'x' dims", &dims), "");
}

TEST(ConfigJsonTest, InstanceCountAddsTheGroups) {
  EXPECT_EQ(InstanceCount(Parse(R"({})")), 1);
  EXPECT_EQ(InstanceCount(Parse(R"({"instance_group": [{"count": 2}, {"count": "3"}, {}]})")), 6);
  EXPECT_EQ(InstanceCount(Parse(R"({"instance_group": [{"count": 0}]})")), 1);
}

}  // namespace
}  // namespace inferd::backend_common

#include "http/exact_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace inferd::http {
namespace {

using Document = rapidjson::Document;

rapidjson::ParseResult Parse(std::string* text, Document* document) {
  rapidjson::CrtAllocator stack;
  return ParseInsituExact<rapidjson::kParseNanAndInfFlag | rapidjson::kParseIterativeFlag>(
      text->data(), document, &stack);
}

double First(std::string text) {
  Document document;
  const auto result = Parse(&text, &document);
  EXPECT_FALSE(result.IsError()) << text << ": " << result.Code();
  return document[0].GetDouble();
}

// Found by make fuzz (infer_body_fuzz): RapidJSON 1.1.0's full-precision
// reading crashed the server on this decimal (an out-of-bounds table read).
TEST(ExactJsonTest, ADecimalWithHundredsOfZerosIsReadExactly) {
  EXPECT_EQ(First("[0." + std::string(400, '0') + "1]"), 0.0);  // 1e-401 rounds to zero
  EXPECT_EQ(First("[0." + std::string(5000, '0') + "1]"), 0.0);
  EXPECT_EQ(First("[0." + std::string(300, '0') + "1]"), 1e-301);
}

// RapidJSON 1.1.0 gave 4.35e186 for 0e270 and a value one ulp off for 40e43.
TEST(ExactJsonTest, ExponentsAreCorrectlyRounded) {
  EXPECT_EQ(First("[0e270]"), 0.0);
  EXPECT_EQ(First("[40e43]"), 4e44);
  EXPECT_EQ(First("[0.1]"), 0.1);
  EXPECT_EQ(First("[2.2250738585072014e-308]"), 2.2250738585072014e-308);
  EXPECT_EQ(First("[1e-400]"), 0.0);
  EXPECT_EQ(First("[4.9e-324]"), 4.9e-324);
}

TEST(ExactJsonTest, IntegersKeepTheirTypeAndRange) {
  std::string text = "[0, -1, 4294967296, -9223372036854775808, 18446744073709551615, "
                     "18446744073709551616, -0]";
  Document document;
  ASSERT_FALSE(Parse(&text, &document).IsError());
  EXPECT_TRUE(document[0].IsUint() && document[0].GetUint() == 0u);
  EXPECT_TRUE(document[1].IsInt() && document[1].GetInt() == -1);
  EXPECT_TRUE(document[2].IsUint64() && !document[2].IsUint());
  EXPECT_EQ(document[3].GetInt64(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(document[4].GetUint64(), std::numeric_limits<uint64_t>::max());
  EXPECT_TRUE(document[5].IsDouble());
  EXPECT_EQ(document[5].GetDouble(), 18446744073709551616.0);
  EXPECT_TRUE(document[6].IsDouble() && std::signbit(document[6].GetDouble()));
}

TEST(ExactJsonTest, NanAndInfinityAsRapidJsonSpellsThem) {
  std::string text = "[NaN, Infinity, -Infinity, Inf, -Inf]";
  Document document;
  ASSERT_FALSE(Parse(&text, &document).IsError());
  EXPECT_TRUE(std::isnan(document[0].GetDouble()));
  EXPECT_EQ(document[1].GetDouble(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(document[2].GetDouble(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(document[3].GetDouble(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(document[4].GetDouble(), -std::numeric_limits<double>::infinity());
}

TEST(ExactJsonTest, ANumberTooLargeForADoubleIsAnError) {
  std::string text = "[1e400]";
  Document document;
  const auto result = Parse(&text, &document);
  EXPECT_EQ(result.Code(), rapidjson::kParseErrorNumberTooBig);
}

TEST(ExactJsonTest, StringsAndStructureAreUnchanged) {
  std::string text = R"({"a": "x\"y", "b": [true, null, {"c": 1.5}]})";
  Document document;
  ASSERT_FALSE(Parse(&text, &document).IsError());
  EXPECT_STREQ(document["a"].GetString(), "x\"y");
  EXPECT_TRUE(document["b"][0].GetBool());
  EXPECT_TRUE(document["b"][1].IsNull());
  EXPECT_EQ(document["b"][2]["c"].GetDouble(), 1.5);
}

TEST(ExactJsonTest, SyntaxErrorsStillReportTheirOffset) {
  std::string text = "[1, 2,";
  Document document;
  const auto result = Parse(&text, &document);
  EXPECT_TRUE(result.IsError());
  EXPECT_EQ(result.Offset(), 6u);
}

}  // namespace
}  // namespace inferd::http

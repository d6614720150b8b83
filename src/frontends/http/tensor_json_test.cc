// JSON "data" <-> binary tensor layout, every datatype.
#include "http/tensor_json.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "inferd/base/half_float.h"

namespace inferd::http {
namespace {

using Code = Status::Code;

rapidjson::Document Json(const char* text) {
  rapidjson::Document document;
  document.Parse<rapidjson::kParseNanAndInfFlag>(text);
  EXPECT_FALSE(document.HasParseError()) << text;
  return document;
}

template <typename T>
std::vector<T> Elements(const TensorBytes& bytes) {
  std::vector<T> values(bytes.byte_size / sizeof(T));
  std::memcpy(values.data(), bytes.data.get(), values.size() * sizeof(T));
  return values;
}

template <typename T>
std::vector<T> Decode(const char* json, INFERD_DataType datatype, uint64_t count) {
  TensorBytes bytes;
  const Status status = JsonToTensor(Json(json), datatype, count, "IN", &bytes);
  EXPECT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(bytes.byte_size, count * sizeof(T));
  return Elements<T>(bytes);
}

std::string Encode(const void* base, size_t byte_size, INFERD_DataType datatype, uint64_t count) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  const Status status = TensorToJson(base, byte_size, datatype, count, "OUT", &writer);
  EXPECT_TRUE(status.ok()) << status.message();
  return std::string(buffer.GetString(), buffer.GetSize());
}

TEST(TensorJsonTest, DecodesBoolAsOneByte) {
  EXPECT_EQ(Decode<uint8_t>("[true,false,true]", INFERD_TYPE_BOOL, 3),
            (std::vector<uint8_t>{1, 0, 1}));
}

TEST(TensorJsonTest, DecodesEveryIntegerType) {
  EXPECT_EQ(Decode<uint8_t>("[0,255]", INFERD_TYPE_UINT8, 2), (std::vector<uint8_t>{0, 255}));
  EXPECT_EQ(Decode<uint16_t>("[65535]", INFERD_TYPE_UINT16, 1), (std::vector<uint16_t>{65535}));
  EXPECT_EQ(Decode<uint32_t>("[4294967295]", INFERD_TYPE_UINT32, 1),
            (std::vector<uint32_t>{4294967295u}));
  EXPECT_EQ(Decode<uint64_t>("[18446744073709551615]", INFERD_TYPE_UINT64, 1),
            (std::vector<uint64_t>{18446744073709551615ull}));
  EXPECT_EQ(Decode<int8_t>("[-128,127]", INFERD_TYPE_INT8, 2), (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(Decode<int16_t>("[-32768]", INFERD_TYPE_INT16, 1), (std::vector<int16_t>{-32768}));
  EXPECT_EQ(Decode<int32_t>("[-5,7]", INFERD_TYPE_INT32, 2), (std::vector<int32_t>{-5, 7}));
  EXPECT_EQ(Decode<int64_t>("[-9223372036854775808]", INFERD_TYPE_INT64, 1),
            (std::vector<int64_t>{INT64_MIN}));
}

TEST(TensorJsonTest, DecodesFloatsFromAnyJsonNumber) {
  EXPECT_EQ(Decode<float>("[1, 2.5, -3e2]", INFERD_TYPE_FP32, 3),
            (std::vector<float>{1.0f, 2.5f, -300.0f}));
  EXPECT_EQ(Decode<double>("[0.1, 7]", INFERD_TYPE_FP64, 2), (std::vector<double>{0.1, 7.0}));
}

TEST(TensorJsonTest, DecodesFp16AndBf16FromNumbers) {
  EXPECT_EQ(Decode<uint16_t>("[1.0, -2, 0.1]", INFERD_TYPE_FP16, 3),
            (std::vector<uint16_t>{0x3C00, 0xC000, 0x2E66}));
  EXPECT_EQ(Decode<uint16_t>("[1.0, -3.140625]", INFERD_TYPE_BF16, 2),
            (std::vector<uint16_t>{0x3F80, FloatToBFloat16(-3.140625f)}));
}

TEST(TensorJsonTest, FlattensNestedArraysRowMajor) {
  EXPECT_EQ(Decode<int32_t>("[[[1,2],[3,4]],[[5,6],[7,8]]]", INFERD_TYPE_INT32, 8),
            (std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(TensorJsonTest, AcceptsAScalarForOneElement) {
  EXPECT_EQ(Decode<float>("4.5", INFERD_TYPE_FP32, 1), (std::vector<float>{4.5f}));
}

TEST(TensorJsonTest, EncodesBytesWithLengthPrefixes) {
  TensorBytes bytes;
  ASSERT_TRUE(JsonToTensor(Json(R"([["ab"],[""],["xyz"]])"), INFERD_TYPE_BYTES, 3, "IN", &bytes)
                  .ok());
  const std::string expected("\x02\0\0\0ab\0\0\0\0\x03\0\0\0xyz", 4 + 2 + 4 + 4 + 3);
  EXPECT_EQ(std::string(bytes.data.get(), bytes.byte_size), expected);
}

TEST(TensorJsonTest, ElementCountMismatchNamesTheInput) {
  TensorBytes bytes;
  const Status status = JsonToTensor(Json("[1,2,3]"), INFERD_TYPE_FP32, 4, "INPUT0", &bytes);
  EXPECT_EQ(status.code(), Code::kInvalidArg);
  EXPECT_NE(status.message().find("'INPUT0'"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("3 elements"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("needs 4"), std::string::npos) << status.message();
}

TEST(TensorJsonTest, RejectsValuesOfTheWrongJsonType) {
  TensorBytes bytes;
  Status status = JsonToTensor(Json("[1, \"2\"]"), INFERD_TYPE_INT32, 2, "X", &bytes);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("element 1"), std::string::npos) << status.message();
  EXPECT_FALSE(JsonToTensor(Json("[1.5]"), INFERD_TYPE_INT32, 1, "X", &bytes).ok());
  EXPECT_FALSE(JsonToTensor(Json("[1]"), INFERD_TYPE_BOOL, 1, "X", &bytes).ok());
  EXPECT_FALSE(JsonToTensor(Json("[1]"), INFERD_TYPE_BYTES, 1, "X", &bytes).ok());
  EXPECT_FALSE(JsonToTensor(Json("[true]"), INFERD_TYPE_FP32, 1, "X", &bytes).ok());
}

TEST(TensorJsonTest, RejectsIntegersOutOfRange) {
  TensorBytes bytes;
  EXPECT_FALSE(JsonToTensor(Json("[256]"), INFERD_TYPE_UINT8, 1, "X", &bytes).ok());
  EXPECT_FALSE(JsonToTensor(Json("[-1]"), INFERD_TYPE_UINT32, 1, "X", &bytes).ok());
  EXPECT_FALSE(JsonToTensor(Json("[128]"), INFERD_TYPE_INT8, 1, "X", &bytes).ok());
  EXPECT_FALSE(JsonToTensor(Json("[9223372036854775808]"), INFERD_TYPE_INT64, 1, "X", &bytes).ok());
}

TEST(TensorJsonTest, RejectsNestingDeeperThan64) {
  std::string json(100, '[');
  json += "1";
  json += std::string(100, ']');
  TensorBytes bytes;
  const Status status = JsonToTensor(Json(json.c_str()), INFERD_TYPE_INT32, 1, "X", &bytes);
  EXPECT_NE(status.message().find("nested deeper"), std::string::npos) << status.message();
}

TEST(TensorJsonTest, EncodesEveryDatatypeAsAFlatArray) {
  const uint8_t bools[] = {1, 0};
  EXPECT_EQ(Encode(bools, 2, INFERD_TYPE_BOOL, 2), "[true,false]");
  const int8_t int8s[] = {-1, 5};
  EXPECT_EQ(Encode(int8s, 2, INFERD_TYPE_INT8, 2), "[-1,5]");
  const uint16_t uint16s[] = {65535};
  EXPECT_EQ(Encode(uint16s, 2, INFERD_TYPE_UINT16, 1), "[65535]");
  const int64_t int64s[] = {INT64_MIN, 3};
  EXPECT_EQ(Encode(int64s, 16, INFERD_TYPE_INT64, 2), "[-9223372036854775808,3]");
  const uint64_t uint64s[] = {18446744073709551615ull};
  EXPECT_EQ(Encode(uint64s, 8, INFERD_TYPE_UINT64, 1), "[18446744073709551615]");
  const float floats[] = {0.1f, 2.0f, -1.5e-7f};
  EXPECT_EQ(Encode(floats, 12, INFERD_TYPE_FP32, 3), "[0.1,2,-1.5e-07]");
  const double doubles[] = {0.1, 1e300};
  EXPECT_EQ(Encode(doubles, 16, INFERD_TYPE_FP64, 2), "[0.1,1e+300]");
  const uint16_t halfs[] = {0x3C00, 0xC000, 0x3555};
  EXPECT_EQ(Encode(halfs, 6, INFERD_TYPE_FP16, 3), "[1,-2,0.33325195]");
  const uint16_t bf16s[] = {0x3F80, 0x4049};
  EXPECT_EQ(Encode(bf16s, 4, INFERD_TYPE_BF16, 2), "[1,3.140625]");
}

TEST(TensorJsonTest, EncodesNanAndInfinity) {
  const float values[] = {std::numeric_limits<float>::quiet_NaN(),
                          -std::numeric_limits<float>::infinity()};
  EXPECT_EQ(Encode(values, 8, INFERD_TYPE_FP32, 2), "[NaN,-Infinity]");
}

TEST(TensorJsonTest, EncodesBytesAsStrings) {
  const std::string bytes("\x02\0\0\0hi\x00\0\0\0", 10);
  EXPECT_EQ(Encode(bytes.data(), bytes.size(), INFERD_TYPE_BYTES, 2), R"(["hi",""])");
}

TEST(TensorJsonTest, Fp16RoundTripsThroughJson) {
  const uint16_t halfs[] = {0x3C00, 0x2E66, 0x7BFF, 0x0001, 0x8000};
  const std::string json = Encode(halfs, sizeof halfs, INFERD_TYPE_FP16, 5);
  EXPECT_EQ(Decode<uint16_t>(json.c_str(), INFERD_TYPE_FP16, 5),
            (std::vector<uint16_t>(std::begin(halfs), std::end(halfs))));
  const uint16_t bf16s[] = {0x3F80, 0x3DCD, 0xC2F7};
  const std::string bf16_json = Encode(bf16s, sizeof bf16s, INFERD_TYPE_BF16, 3);
  EXPECT_EQ(Decode<uint16_t>(bf16_json.c_str(), INFERD_TYPE_BF16, 3),
            (std::vector<uint16_t>(std::begin(bf16s), std::end(bf16s))));
}

TEST(TensorJsonTest, EncodingChecksSizesAgainstTheShape) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  const float floats[] = {1, 2};
  const Status status = TensorToJson(floats, 8, INFERD_TYPE_FP32, 3, "OUT", &writer);
  EXPECT_EQ(status.code(), Code::kInternal);
  EXPECT_NE(status.message().find("'OUT'"), std::string::npos);
  const std::string truncated("\x05\0\0\0ab", 6);
  rapidjson::StringBuffer buffer2;
  JsonWriter writer2(buffer2);
  EXPECT_FALSE(TensorToJson(truncated.data(), 6, INFERD_TYPE_BYTES, 1, "OUT", &writer2).ok());
}

// The generate extension writes a one-element tensor as its bare value.
std::string EncodeUnwrapped(const void* base, size_t byte_size, INFERD_DataType datatype,
                            uint64_t count) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("v");
  const Status status =
      TensorToJson(base, byte_size, datatype, count, "OUT", &writer, /*unwrap_single=*/true);
  EXPECT_TRUE(status.ok()) << status.message();
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

TEST(TensorJsonTest, UnwrapsOnlySingleElements) {
  const int32_t one[] = {7};
  EXPECT_EQ(EncodeUnwrapped(one, 4, INFERD_TYPE_INT32, 1), R"({"v":7})");
  const int32_t two[] = {7, 8};
  EXPECT_EQ(EncodeUnwrapped(two, 8, INFERD_TYPE_INT32, 2), R"({"v":[7,8]})");
  EXPECT_EQ(EncodeUnwrapped(nullptr, 0, INFERD_TYPE_INT32, 0), R"({"v":[]})");
  const std::string word("\x05\0\0\0Hello", 9);
  EXPECT_EQ(EncodeUnwrapped(word.data(), word.size(), INFERD_TYPE_BYTES, 1), R"({"v":"Hello"})");
  const std::string words("\x01\0\0\0a\x01\0\0\0b", 10);
  EXPECT_EQ(EncodeUnwrapped(words.data(), words.size(), INFERD_TYPE_BYTES, 2),
            R"({"v":["a","b"]})");
  const float half = 0.5f;
  EXPECT_EQ(EncodeUnwrapped(&half, 4, INFERD_TYPE_FP32, 1), R"({"v":0.5})");
  const uint8_t yes = 1;
  EXPECT_EQ(EncodeUnwrapped(&yes, 1, INFERD_TYPE_BOOL, 1), R"({"v":true})");
}

TEST(TensorJsonTest, DecodesAScalarAsOneElement) {
  EXPECT_EQ(Decode<int32_t>("42", INFERD_TYPE_INT32, 1), (std::vector<int32_t>{42}));
  TensorBytes bytes;
  const Status status =
      JsonToTensor(Json(R"("x")"), INFERD_TYPE_INT32, 1, "IN", &bytes, "its value");
  EXPECT_NE(status.message().find("element 0 of its value is not valid"), std::string::npos)
      << status.message();
}

TEST(TensorJsonTest, CountsElementsAtAnyNesting) {
  uint64_t count = 0;
  ASSERT_TRUE(CountJsonElements(Json("[[1,2],[3,4],[5,6]]"), "IN", &count).ok());
  EXPECT_EQ(count, 6u);
  ASSERT_TRUE(CountJsonElements(Json("\"one\""), "IN", &count).ok());
  EXPECT_EQ(count, 1u);
  ASSERT_TRUE(CountJsonElements(Json("[]"), "IN", &count).ok());
  EXPECT_EQ(count, 0u);
  const std::string deep = std::string(70, '[') + std::string(70, ']');
  EXPECT_EQ(CountJsonElements(Json(deep.c_str()), "IN", &count).code(), Code::kInvalidArg);
}

}  // namespace
}  // namespace inferd::http

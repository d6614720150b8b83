// Parsing infer request bodies: JSON data, the binary extension, outputs and
// parameters.
#include "http/infer_request_parser.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace inferd::http {
namespace {

using Code = Status::Code;

// Keeps the body alive (the parsed request points into it).
struct Parsed {
  std::string body;
  ParsedInferRequest request;
  Status status;
};

Parsed Parse(std::string json, std::string binary = "") {
  Parsed parsed;
  parsed.body = json + binary;
  parsed.status = ParseInferRequest(parsed.body.data(), parsed.body.size(), json.size(),
                                    &parsed.request);
  return parsed;
}

TEST(InferRequestParserTest, DecodesJsonInputs) {
  const Parsed p = Parse(R"({"id":"r1","inputs":[
      {"name":"IN","shape":[2,2],"datatype":"FP32","data":[[1,2],[3,4]]},
      {"name":"S","shape":[1],"datatype":"BYTES","data":["hi"]}]})");
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_STREQ(p.request.id, "r1");
  ASSERT_EQ(p.request.inputs.size(), 2u);
  const ParsedInput& in = p.request.inputs[0];
  EXPECT_STREQ(in.name, "IN");
  EXPECT_EQ(in.datatype, INFERD_TYPE_FP32);
  EXPECT_EQ(in.shape, (std::vector<int64_t>{2, 2}));
  ASSERT_EQ(in.byte_size, 16u);
  float values[4];
  std::memcpy(values, in.data, 16);
  EXPECT_EQ(values[3], 4.0f);
  EXPECT_EQ(std::string(p.request.inputs[1].data, p.request.inputs[1].byte_size),
            std::string("\x02\0\0\0hi", 6));
  EXPECT_TRUE(p.request.outputs.empty());
  EXPECT_FALSE(p.request.binary_data_output);
}

TEST(InferRequestParserTest, BinaryInputsPointIntoTheBody) {
  const std::string json = R"({"inputs":[
      {"name":"A","shape":[2],"datatype":"INT32","parameters":{"binary_data_size":8}},
      {"name":"B","shape":[1],"datatype":"INT32","data":[9]},
      {"name":"C","shape":[1],"datatype":"UINT8","parameters":{"binary_data_size":1}}]})";
  const std::string binary("\x01\0\0\0\x02\0\0\0\x07", 9);
  const Parsed p = Parse(json, binary);
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(p.request.inputs[0].data, p.body.data() + json.size());  // zero copy
  EXPECT_EQ(p.request.inputs[0].byte_size, 8u);
  EXPECT_EQ(p.request.inputs[2].data, p.body.data() + json.size() + 8);
  EXPECT_EQ(p.request.inputs[2].data[0], '\x07');
  EXPECT_EQ(p.request.decoded.size(), 1u);  // only B was decoded from JSON
}

TEST(InferRequestParserTest, BinarySizeMismatchNamesTheInput) {
  const std::string json = R"({"inputs":[{"name":"A","shape":[2],"datatype":"INT32",
      "parameters":{"binary_data_size":8}}]})";
  Parsed p = Parse(json, std::string(6, 'x'));
  EXPECT_EQ(p.status.code(), Code::kInvalidArg);
  EXPECT_NE(p.status.message().find("'A'"), std::string::npos) << p.status.message();
  p = Parse(json, std::string(10, 'x'));
  EXPECT_EQ(p.status.code(), Code::kInvalidArg);
  EXPECT_NE(p.status.message().find("2 more bytes"), std::string::npos) << p.status.message();
}

TEST(InferRequestParserTest, BinarySizeMustFitTheShape) {
  const Parsed p = Parse(
      R"({"inputs":[{"name":"A","shape":[3],"datatype":"FP32",
          "parameters":{"binary_data_size":8}}]})",
      std::string(8, 'x'));
  EXPECT_EQ(p.status.code(), Code::kInvalidArg);
  EXPECT_NE(p.status.message().find("12 bytes"), std::string::npos) << p.status.message();
  const Parsed bytes = Parse(
      R"({"inputs":[{"name":"S","shape":[2],"datatype":"BYTES",
          "parameters":{"binary_data_size":6}}]})",
      std::string("\x02\0\0\0hi", 6));
  EXPECT_NE(bytes.status.message().find("2 length-prefixed"), std::string::npos)
      << bytes.status.message();
}

TEST(InferRequestParserTest, DataCountMismatchNamesTheInput) {
  const Parsed p =
      Parse(R"({"inputs":[{"name":"IN","shape":[1,16],"datatype":"FP32","data":[1,2]}]})");
  EXPECT_EQ(p.status.code(), Code::kInvalidArg);
  EXPECT_NE(p.status.message().find("'IN'"), std::string::npos);
}

TEST(InferRequestParserTest, OutputsTakeBinaryFlagOrTheRequestDefault) {
  const Parsed p = Parse(R"({"parameters":{"binary_data_output":true},
      "inputs":[],
      "outputs":[{"name":"X"},{"name":"Y","parameters":{"binary_data":false}}]})");
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_TRUE(p.request.binary_data_output);
  ASSERT_EQ(p.request.outputs.size(), 2u);
  EXPECT_EQ(p.request.outputs[0].name, "X");
  EXPECT_TRUE(p.request.outputs[0].binary);
  EXPECT_FALSE(p.request.outputs[1].binary);
  EXPECT_TRUE(p.request.parameters.empty());  // binary_data_output is consumed
}

TEST(InferRequestParserTest, MapsRequestParameters) {
  const Parsed p = Parse(R"({"parameters":{"sequence_id":42,"sequence_start":true,
      "sequence_end":false,"priority":2,"timeout":5000,"custom":"v","n":-3,"flag":true,
      "temperature":0.25},
      "inputs":[]})");
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(p.request.sequence_id, 42u);
  EXPECT_EQ(p.request.flags, static_cast<uint32_t>(INFERD_REQUEST_FLAG_SEQUENCE_START));
  EXPECT_EQ(p.request.priority, 2u);
  EXPECT_EQ(p.request.timeout_us, 5000u);
  ASSERT_EQ(p.request.parameters.size(), 4u);
  EXPECT_EQ(p.request.parameters[3].kind, ParsedParameter::Kind::kDouble);
  EXPECT_DOUBLE_EQ(p.request.parameters[3].double_value, 0.25);
  EXPECT_STREQ(p.request.parameters[0].name, "custom");
  EXPECT_STREQ(p.request.parameters[0].string_value, "v");
  EXPECT_EQ(p.request.parameters[1].kind, ParsedParameter::Kind::kInt);
  EXPECT_EQ(p.request.parameters[1].int_value, -3);
  EXPECT_EQ(p.request.parameters[2].kind, ParsedParameter::Kind::kBool);
  const Parsed text = Parse(R"({"parameters":{"sequence_id":"abc"},"inputs":[]})");
  EXPECT_STREQ(text.request.sequence_id_string, "abc");
  EXPECT_FALSE(text.request.sequence_id.has_value());
}

TEST(InferRequestParserTest, ClassificationCountIsParsed) {
  const Parsed p = Parse(R"({"inputs":[],"outputs":[{"name":"O","parameters":{"classification":3}}]})");
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(p.request.outputs[0].class_count, 3u);
  for (const char* bad : {"0", "-1", "\"3\"", "2.5"}) {
    const Parsed b = Parse(std::string(R"({"inputs":[],"outputs":[{"name":"O","parameters":{"classification":)") +
                           bad + "}}]}");
    EXPECT_EQ(b.status.code(), Code::kInvalidArg) << bad;
  }
}

TEST(InferRequestParserTest, SharedMemoryTensorsAreDescribed) {
  const Parsed p = Parse(R"({"inputs":[{"name":"I","shape":[2],"datatype":"FP32",
      "parameters":{"shared_memory_region":"in","shared_memory_byte_size":8,
                    "shared_memory_offset":16}}],
      "outputs":[{"name":"O","parameters":{"shared_memory_region":"out",
                                           "shared_memory_byte_size":32}}]})");
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  const ParsedInput& in = p.request.inputs[0];
  EXPECT_EQ(in.shared_memory.region, "in");
  EXPECT_EQ(in.shared_memory.offset, 16u);
  EXPECT_EQ(in.shared_memory.byte_size, 8u);
  EXPECT_EQ(in.byte_size, 8u);
  EXPECT_EQ(in.data, nullptr);  // the frontend locates it
  const ParsedOutput& out = p.request.outputs[0];
  EXPECT_EQ(out.shared_memory.region, "out");
  EXPECT_EQ(out.shared_memory.offset, 0u);
  EXPECT_EQ(out.shared_memory.byte_size, 32u);
}

TEST(InferRequestParserTest, MalformedSharedMemoryParametersAre400) {
  const auto input = [](const std::string& parameters, const std::string& extra = "") {
    return Parse(R"({"inputs":[{"name":"I","shape":[1],"datatype":"FP32",)" + extra +
                 R"("parameters":)" + parameters + "}]}");
  };
  const Parsed no_size = input(R"({"shared_memory_region":"r"})");
  EXPECT_EQ(no_size.status.code(), Code::kInvalidArg);
  EXPECT_NE(no_size.status.message().find("shared_memory_byte_size"), std::string::npos);
  EXPECT_EQ(input(R"({"shared_memory_region":"r","shared_memory_byte_size":-4})")
                .status.code(),
            Code::kInvalidArg);
  EXPECT_EQ(input(R"({"shared_memory_region":7,"shared_memory_byte_size":4})")
                .status.code(),
            Code::kInvalidArg);
  EXPECT_EQ(input(R"({"shared_memory_byte_size":4})").status.code(), Code::kInvalidArg);
  const Parsed both = input(R"({"shared_memory_region":"r","shared_memory_byte_size":4})",
                            R"("data":[1],)");
  EXPECT_EQ(both.status.code(), Code::kInvalidArg);
  EXPECT_NE(both.status.message().find("'I'"), std::string::npos);
}

TEST(InferRequestParserTest, MalformedRequestsAre400) {
  EXPECT_EQ(Parse("{\"inputs\":[").status.code(), Code::kInvalidArg);
  EXPECT_EQ(Parse("").status.code(), Code::kInvalidArg);
  EXPECT_EQ(Parse(R"({"inputs":{}})").status.code(), Code::kInvalidArg);
  EXPECT_EQ(Parse(R"({"inputs":[{"name":"I","shape":[1],"datatype":"FP99","data":[1]}]})")
                .status.code(),
            Code::kInvalidArg);
  EXPECT_EQ(Parse(R"({"inputs":[{"name":"I","shape":[-1],"datatype":"FP32","data":[1]}]})")
                .status.code(),
            Code::kInvalidArg);
  const Parsed no_data = Parse(R"({"inputs":[{"name":"I","shape":[1],"datatype":"FP32"}]})");
  EXPECT_NE(no_data.status.message().find("neither"), std::string::npos);
}

TEST(InferRequestParserTest, JsonEndsAtTheHeaderLength) {
  // The binary part starts right after the JSON and may hold anything.
  const std::string json = R"({"inputs":[{"name":"A","shape":[1],"datatype":"UINT8",
      "parameters":{"binary_data_size":1}}]})";
  const Parsed p = Parse(json, "}");
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(p.body[json.size()], '}');  // restored after parsing
}

}  // namespace
}  // namespace inferd::http

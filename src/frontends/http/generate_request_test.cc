// Generate extension requests: keys become inputs (datatype and shape from the
// model) or parameters; the shape rule; the model metadata they rely on.
#include "http/generate_request.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace inferd::http {
namespace {

using Code = Status::Code;

ModelInput Input(std::string name, INFERD_DataType datatype, std::vector<int64_t> shape) {
  return ModelInput{std::move(name), datatype, std::move(shape)};
}

// A batching FP32 model with 4 values per row, and a BYTES input of any length.
const std::vector<ModelInput> kInputs = {
    Input("INPUT0", INFERD_TYPE_FP32, {-1, 4}),
    Input("text_input", INFERD_TYPE_BYTES, {-1}),
};

// Keeps the body alive (the parsed request points into it).
struct Parsed {
  std::string body;
  ParsedInferRequest request;
  Status status;
};

Parsed Parse(std::string json, const std::vector<ModelInput>& inputs = kInputs) {
  Parsed parsed;
  parsed.body = std::move(json);
  parsed.status =
      ParseGenerateRequest(parsed.body.data(), parsed.body.size(), inputs, &parsed.request);
  return parsed;
}

std::vector<int64_t> Shape(const ModelInput& input, uint64_t count) {
  std::vector<int64_t> shape;
  const Status status = GenerateInputShape(input, count, &shape);
  EXPECT_TRUE(status.ok()) << status.message();
  return shape;
}

Status ShapeError(const ModelInput& input, uint64_t count) {
  std::vector<int64_t> shape;
  return GenerateInputShape(input, count, &shape);
}

TEST(GenerateRequestTest, KeysNamingInputsAreInputsTheRestAreParameters) {
  const Parsed p = Parse(R"({"INPUT0": [1, 2, 3, 4], "text_input": "hello",
                             "delay_ms": 50, "mode": "fast", "greedy": false, "t": 0.5})");
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  ASSERT_EQ(p.request.inputs.size(), 2u);
  const ParsedInput& numbers = p.request.inputs[0];
  EXPECT_STREQ(numbers.name, "INPUT0");
  EXPECT_EQ(numbers.datatype, INFERD_TYPE_FP32);
  EXPECT_EQ(numbers.shape, (std::vector<int64_t>{1, 4}));  // a batch of one row
  ASSERT_EQ(numbers.byte_size, 16u);
  float values[4];
  std::memcpy(values, numbers.data, sizeof values);
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(values[3], 4.0f);
  const ParsedInput& text = p.request.inputs[1];
  EXPECT_EQ(text.datatype, INFERD_TYPE_BYTES);
  EXPECT_EQ(text.shape, (std::vector<int64_t>{1}));  // a scalar is one element
  EXPECT_EQ(std::string(text.data, text.byte_size), std::string("\x05\0\0\0hello", 9));

  ASSERT_EQ(p.request.parameters.size(), 4u);
  EXPECT_STREQ(p.request.parameters[0].name, "delay_ms");
  EXPECT_EQ(p.request.parameters[0].kind, ParsedParameter::Kind::kInt);
  EXPECT_EQ(p.request.parameters[0].int_value, 50);
  EXPECT_EQ(p.request.parameters[1].kind, ParsedParameter::Kind::kString);
  EXPECT_STREQ(p.request.parameters[1].string_value, "fast");
  EXPECT_EQ(p.request.parameters[2].kind, ParsedParameter::Kind::kBool);
  EXPECT_FALSE(p.request.parameters[2].bool_value);
  EXPECT_EQ(p.request.parameters[3].kind, ParsedParameter::Kind::kDouble);
  EXPECT_EQ(p.request.parameters[3].double_value, 0.5);
  EXPECT_TRUE(p.request.outputs.empty());  // every output the model has
}

TEST(GenerateRequestTest, BytesArraysKeepTheirElementsInOrder) {
  const Parsed p = Parse(R"({"text_input": ["Hello", "", "caf\u00e9"]})");
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  const ParsedInput& text = p.request.inputs[0];
  EXPECT_EQ(text.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(std::string(text.data, text.byte_size),
            std::string("\x05\0\0\0Hello\0\0\0\0\x05\0\0\0caf\xc3\xa9", 22));
}

TEST(GenerateRequestTest, ParametersObjectHoldsParametersAndInputs) {
  const Parsed p = Parse(
      R"({"parameters": {"temperature": 0, "stream": true, "text_input": ["a"]}, "id": "r7"})");
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_STREQ(p.request.id, "r7");
  ASSERT_EQ(p.request.parameters.size(), 2u);
  EXPECT_STREQ(p.request.parameters[0].name, "temperature");
  EXPECT_EQ(p.request.parameters[0].kind, ParsedParameter::Kind::kInt);
  EXPECT_STREQ(p.request.parameters[1].name, "stream");
  ASSERT_EQ(p.request.inputs.size(), 1u);
  EXPECT_STREQ(p.request.inputs[0].name, "text_input");
}

TEST(GenerateRequestTest, AnInputNamedLikeAReservedKeyIsTheInput) {
  const std::vector<ModelInput> inputs = {Input("id", INFERD_TYPE_INT32, {1}),
                                          Input("parameters", INFERD_TYPE_BYTES, {-1})};
  const Parsed p = Parse(R"({"id": 3, "parameters": ["x", "y"]})", inputs);
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_EQ(p.request.id, nullptr);
  ASSERT_EQ(p.request.inputs.size(), 2u);
  EXPECT_EQ(p.request.inputs[1].shape, (std::vector<int64_t>{2}));
}

TEST(GenerateRequestTest, AnEmptyBodyIsAnEmptyRequest) {
  const Parsed p = Parse(" \n");
  ASSERT_TRUE(p.status.ok()) << p.status.message();
  EXPECT_TRUE(p.request.inputs.empty());
  EXPECT_TRUE(p.request.parameters.empty());
}

TEST(GenerateRequestTest, ErrorsNameWhatIsWrong) {
  struct Case {
    const char* json;
    const char* needle;
  };
  const Case cases[] = {
      {R"({"INPUT0": [1, 2)", "failed to parse the generate request JSON"},
      {R"([1, 2])", "must be a JSON object"},
      {R"({"INPUT0": [1, 2, 3]})", "input 'INPUT0': 3 element(s) do not fit the model's shape [-1,4]"},
      {R"({"INPUT0": [1, 2, "x", 4]})", "input 'INPUT0': element 2 of its value is not valid for datatype FP32"},
      {R"({"text_input": [1]})", "input 'text_input': element 0 of its value is not valid for datatype BYTES"},
      {R"({"text_input": "a", "parameters": {"text_input": "b"}})", "input 'text_input' is given twice"},
      {R"({"nested": {"a": 1}})", "'nested' is not an input of the model, so it is a request parameter"},
      {R"({"list": [1, 2]})", "'list' is not an input of the model"},
      {R"({"huge": 18446744073709551615})", "'huge' is not an input of the model"},
      {R"({"parameters": 5})", "'parameters' must be a JSON object"},
      {R"({"id": 5})", "'id' must be a string"},
  };
  for (const Case& c : cases) {
    const Parsed p = Parse(c.json);
    EXPECT_EQ(p.status.code(), Code::kInvalidArg) << c.json;
    EXPECT_NE(p.status.message().find(c.needle), std::string::npos)
        << c.json << " -> " << p.status.message();
  }
}

TEST(GenerateInputShapeTest, FollowsTritonsRule) {
  // The innermost -1 takes what the fixed dimensions leave; other -1s are 1.
  EXPECT_EQ(Shape(Input("x", INFERD_TYPE_FP32, {-1, 16}), 16), (std::vector<int64_t>{1, 16}));
  EXPECT_EQ(Shape(Input("x", INFERD_TYPE_FP32, {-1, 16}), 32), (std::vector<int64_t>{2, 16}));
  EXPECT_EQ(Shape(Input("x", INFERD_TYPE_FP32, {-1, -1}), 5), (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(Shape(Input("x", INFERD_TYPE_FP32, {-1, -1, 4}), 8),
            (std::vector<int64_t>{1, 2, 4}));
  EXPECT_EQ(Shape(Input("x", INFERD_TYPE_FP32, {2, -1}), 6), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(Shape(Input("x", INFERD_TYPE_FP32, {3}), 3), (std::vector<int64_t>{3}));
  EXPECT_EQ(Shape(Input("x", INFERD_TYPE_FP32, {}), 1), (std::vector<int64_t>{}));
  EXPECT_EQ(Shape(Input("x", INFERD_TYPE_FP32, {-1}), 0), (std::vector<int64_t>{0}));
  EXPECT_EQ(Shape(Input("x", INFERD_TYPE_FP32, {0}), 0), (std::vector<int64_t>{0}));
  EXPECT_EQ(Shape(Input("x", INFERD_TYPE_FP32, {-1, 0}), 0), (std::vector<int64_t>{1, 0}));
}

TEST(GenerateInputShapeTest, CountsThatDoNotFitAreInvalid) {
  EXPECT_EQ(ShapeError(Input("x", INFERD_TYPE_FP32, {3}), 2).code(), Code::kInvalidArg);
  EXPECT_EQ(ShapeError(Input("x", INFERD_TYPE_FP32, {-1, 4}), 6).code(), Code::kInvalidArg);
  EXPECT_EQ(ShapeError(Input("x", INFERD_TYPE_FP32, {-1, 0}), 2).code(), Code::kInvalidArg);
  EXPECT_EQ(ShapeError(Input("x", INFERD_TYPE_FP32, {}), 2).code(), Code::kInvalidArg);
}

TEST(ModelInputsTest, ReadsNameDatatypeAndShapeFromMetadata) {
  std::vector<ModelInput> inputs;
  const Status status = ParseModelInputs(
      R"({"name":"m","versions":["1"],"platform":"identity",
          "inputs":[{"name":"INPUT0","datatype":"FP32","shape":[-1,16]},
                    {"name":"T","datatype":"BYTES","shape":[]}],
          "outputs":[]})",
      &inputs);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[0].name, "INPUT0");
  EXPECT_EQ(inputs[0].datatype, INFERD_TYPE_FP32);
  EXPECT_EQ(inputs[0].shape, (std::vector<int64_t>{-1, 16}));
  EXPECT_EQ(inputs[1].datatype, INFERD_TYPE_BYTES);
  EXPECT_TRUE(inputs[1].shape.empty());
}

TEST(ModelInputsTest, MalformedMetadataIsInternal) {
  std::vector<ModelInput> inputs;
  EXPECT_EQ(ParseModelInputs("{}", &inputs).code(), Code::kInternal);
  EXPECT_EQ(ParseModelInputs(R"({"inputs":[{"name":"x","datatype":"NOPE","shape":[]}]})", &inputs)
                .code(),
            Code::kInternal);
  EXPECT_EQ(ParseModelInputs(R"({"inputs":[{"name":"x","datatype":"FP32","shape":[-2]}]})",
                             &inputs)
                .code(),
            Code::kInternal);
}

}  // namespace
}  // namespace inferd::http

// Tests of configuration completion from an ONNX model's tensors and of the
// configuration-versus-model checks.
#include "config_completion.h"

#include <gtest/gtest.h>

#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace inferd::onnxruntime {
namespace {

constexpr int64_t kDyn = -1;

ModelIo AddSubIo() {
  return {{{"INPUT0", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {kDyn, 16}},
           {"INPUT1", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {kDyn, 16}}},
          {{"OUTPUT0", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {kDyn, 16}}}};
}

// Completes `json` and parses the result.
ModelSettings Complete(const ModelIo& io, const std::string& json, int64_t default_mbs = 4,
                       std::string* out_json = nullptr) {
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  EXPECT_EQ(CompleteConfig(io, default_mbs, &doc), "");
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  doc.Accept(writer);
  if (out_json) *out_json = buffer.GetString();
  ModelSettings settings;
  EXPECT_EQ(ParseModelSettings(buffer.GetString(), &settings), "");
  return settings;
}

TEST(ConfigCompletionTest, BatchingModelGetsDefaultMaxBatchSizeAndDynamicBatching) {
  std::string json;
  const ModelSettings s =
      Complete(AddSubIo(), R"({"name":"m","max_batch_size":0,"input":[],"output":[]})", 4, &json);
  EXPECT_EQ(s.max_batch_size, 4);
  ASSERT_EQ(s.inputs.size(), 2u);
  EXPECT_EQ(s.inputs[0].name, "INPUT0");
  EXPECT_EQ(s.inputs[0].type->config_name, "TYPE_FP32");
  EXPECT_EQ(s.inputs[0].dims, (std::vector<int64_t>{16}));
  ASSERT_EQ(s.outputs.size(), 1u);
  EXPECT_EQ(s.outputs[0].dims, (std::vector<int64_t>{16}));
  EXPECT_NE(json.find("\"dynamic_batching\":{}"), std::string::npos) << json;
  EXPECT_EQ(CheckConfigMatchesModel(s, AddSubIo()), "");
}

TEST(ConfigCompletionTest, FixedFirstDimensionMeansNoBatching) {
  const ModelIo io = {{{"x", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, {2, 3}}},
                      {{"y", ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING, {2, kDyn}}}};
  std::string json;
  const ModelSettings s = Complete(io, R"({"name":"m","max_batch_size":0})", 4, &json);
  EXPECT_EQ(s.max_batch_size, 0);
  EXPECT_EQ(s.inputs[0].dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(s.outputs[0].dims, (std::vector<int64_t>{2, kDyn}));
  EXPECT_EQ(s.outputs[0].type->config_name, "TYPE_STRING");
  EXPECT_EQ(json.find("dynamic_batching"), std::string::npos);
}

TEST(ConfigCompletionTest, ZeroDefaultMaxBatchSizeDisablesBatching) {
  const ModelSettings s = Complete(AddSubIo(), R"({"name":"m"})", 0);
  EXPECT_EQ(s.max_batch_size, 0);
  EXPECT_EQ(s.inputs[0].dims, (std::vector<int64_t>{kDyn, 16}));
}

TEST(ConfigCompletionTest, KeepsConfiguredValuesAndFillsTheRest) {
  const std::string json = R"({"name":"m","max_batch_size":8,
      "dynamic_batching":{"max_queue_delay_microseconds":100},
      "input":[{"name":"INPUT1","data_type":"TYPE_INVALID","dims":[]}]})";
  std::string out;
  const ModelSettings s = Complete(AddSubIo(), json, 4, &out);
  EXPECT_EQ(s.max_batch_size, 8);
  ASSERT_EQ(s.inputs.size(), 2u);
  EXPECT_EQ(s.inputs[0].name, "INPUT1");  // the configured entry stays first
  EXPECT_EQ(s.inputs[0].type->config_name, "TYPE_FP32");
  EXPECT_EQ(s.inputs[0].dims, (std::vector<int64_t>{16}));
  EXPECT_NE(out.find("\"max_queue_delay_microseconds\":100"), std::string::npos);
}

TEST(ConfigCompletionTest, ConfiguredFullShapeKeepsTheModelUnbatched) {
  const std::string json = R"({"name":"m","input":[{"name":"INPUT0","data_type":"TYPE_FP32",
      "dims":[-1,16]}]})";
  const ModelSettings s = Complete(AddSubIo(), json);
  EXPECT_EQ(s.max_batch_size, 0);
  EXPECT_EQ(s.inputs[1].dims, (std::vector<int64_t>{kDyn, 16}));
}

TEST(ConfigCompletionTest, RankOneBatchTensorGetsDimsOneAndEmptyReshape) {
  const ModelIo io = {{{"x", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {kDyn}}},
                      {{"y", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {kDyn}}}};
  const ModelSettings s = Complete(io, R"({"name":"m"})");
  EXPECT_EQ(s.max_batch_size, 4);
  EXPECT_EQ(s.inputs[0].dims, (std::vector<int64_t>{1}));
  ASSERT_TRUE(s.inputs[0].reshape.has_value());
  EXPECT_TRUE(s.inputs[0].reshape->empty());
  EXPECT_EQ(CheckConfigMatchesModel(s, io), "");
}

TEST(ConfigCompletionTest, RefusesElementTypesInferdCannotServe) {
  const ModelIo io = {{{"z", ONNX_TENSOR_ELEMENT_DATA_TYPE_COMPLEX64, {2}}}, {}};
  rapidjson::Document doc;
  doc.Parse(R"({"name":"m"})");
  EXPECT_NE(CompleteConfig(io, 4, &doc).find("input 'z' has element type COMPLEX64"),
            std::string::npos);
}

ModelSettings Parse(const std::string& json) {
  ModelSettings settings;
  EXPECT_EQ(ParseModelSettings(json, &settings), "");
  return settings;
}

TEST(ConfigCompletionTest, LeavesOutSequenceControlsAndImplicitState) {
  const ModelIo io = {{{"INPUT", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {kDyn, 1}},
                       {"START", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, {kDyn, 1}},
                       {"STATE_IN", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {kDyn, 1}}},
                      {{"OUTPUT", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {kDyn, 1}},
                       {"STATE_OUT", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {kDyn, 1}}}};
  std::string json;
  const ModelSettings s = Complete(
      io,
      R"({"name":"m","max_batch_size":2,"sequence_batching":{)"
      R"("control_input":[{"name":"START","control":[{"kind":"CONTROL_SEQUENCE_START",)"
      R"("int32_false_true":[0,1]}]}],)"
      R"("state":[{"input_name":"STATE_IN","output_name":"STATE_OUT",)"
      R"("data_type":"TYPE_FP32","dims":[1]}]}})",
      4, &json);
  rapidjson::Document doc;
  doc.Parse(json.c_str());
  ASSERT_EQ(doc["input"].Size(), 1u) << json;
  EXPECT_STREQ(doc["input"][0]["name"].GetString(), "INPUT");
  ASSERT_EQ(doc["output"].Size(), 1u) << json;
  EXPECT_STREQ(doc["output"][0]["name"].GetString(), "OUTPUT");
  EXPECT_FALSE(doc.HasMember("dynamic_batching")) << json;
  // The settings still know them, from sequence_batching: the check passes.
  EXPECT_EQ(CheckConfigMatchesModel(s, io), "");
}

TEST(ConfigCheckTest, NamesAnInputTheModelLacks) {
  const ModelSettings s = Parse(R"({"max_batch_size":4,"input":[
      {"name":"INPUT0","data_type":"TYPE_FP32","dims":[16]},
      {"name":"BOGUS","data_type":"TYPE_FP32","dims":[16]}]})");
  EXPECT_EQ(CheckConfigMatchesModel(s, AddSubIo()),
            "configuration input 'BOGUS' is not an input of the model (its inputs: 'INPUT0', "
            "'INPUT1'); fix: name: one of 'INPUT0', 'INPUT1'");
}

TEST(ConfigCheckTest, NamesATypeMismatch) {
  const ModelSettings s = Parse(R"({"max_batch_size":4,"input":[
      {"name":"INPUT0","data_type":"TYPE_INT32","dims":[16]},
      {"name":"INPUT1","data_type":"TYPE_FP32","dims":[16]}]})");
  EXPECT_EQ(CheckConfigMatchesModel(s, AddSubIo()),
            "input 'INPUT0' has data_type TYPE_INT32 in the configuration but the model's is "
            "FLOAT (TYPE_FP32); fix: data_type: TYPE_FP32");
}

TEST(ConfigCheckTest, NamesAShapeMismatchAndAMissingInput) {
  ModelSettings s = Parse(R"({"max_batch_size":4,"input":[
      {"name":"INPUT0","data_type":"TYPE_FP32","dims":[8]}]})");
  EXPECT_EQ(CheckConfigMatchesModel(s, AddSubIo()),
            "input 'INPUT0' has dims [8] in the configuration but the model's shape is [16] "
            "(without the batch dimension); fix: dims: [16]");
  s.inputs[0].dims = {4, 16};  // the batch dimension written into dims
  EXPECT_EQ(CheckConfigMatchesModel(s, AddSubIo()),
            "input 'INPUT0' has dims [4,16] in the configuration but the model's shape is [16] "
            "(without the batch dimension); fix: leave out the batch dimension (max_batch_size "
            "> 0 adds it): dims: [16]");
  s.inputs[0].dims = {16};
  EXPECT_NE(CheckConfigMatchesModel(s, AddSubIo())
                .find("input 'INPUT1' (FLOAT [-1,16]) is missing"),
            std::string::npos);
}

TEST(ConfigCheckTest, BatchingNeedsAVariableFirstDimension) {
  const ModelIo io = {{{"x", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {2, 3}}}, {}};
  const ModelSettings s = Parse(R"({"max_batch_size":4,"input":[
      {"name":"x","data_type":"TYPE_FP32","dims":[3]}]})");
  EXPECT_NE(CheckConfigMatchesModel(s, io).find("not a variable batch dimension"),
            std::string::npos);
}

TEST(ConfigCheckTest, VariableModelDimensionAcceptsAnyConfiguredSize) {
  const ModelIo io = {{{"x", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, {kDyn, kDyn}}}, {}};
  const ModelSettings s = Parse(R"({"max_batch_size":0,"input":[
      {"name":"x","data_type":"TYPE_FP32","dims":[-1,7]}]})");
  EXPECT_EQ(CheckConfigMatchesModel(s, io), "");
}

TEST(ModelSettingsTest, ReadsParametersGraphLevelAndInstanceCount) {
  const ModelSettings s = Parse(R"({"name":"m","max_batch_size":"8",
      "default_model_filename":"net.onnx",
      "parameters":{"intra_op_thread_count":{"string_value":"2"}},
      "optimization":{"graph":{"level":-1}},
      "instance_group":[{"count":2,"kind":"KIND_CPU"},{"count":3,"kind":"KIND_CPU"}],
      "output":[{"name":"y","data_type":"TYPE_BF16","dims":[4],"reshape":{"shape":[2,2]}}]})");
  EXPECT_EQ(s.max_batch_size, 8);
  EXPECT_EQ(s.default_model_filename, "net.onnx");
  EXPECT_EQ(s.parameters.at("intra_op_thread_count"), "2");
  EXPECT_EQ(s.graph_level, -1);
  EXPECT_EQ(s.instance_count, 5);
  ASSERT_TRUE(s.outputs[0].reshape.has_value());
  EXPECT_EQ(*s.outputs[0].reshape, (std::vector<int64_t>{2, 2}));
}

TEST(ModelSettingsTest, NamesATensorWithAnUnservedType) {
  ModelSettings s;
  EXPECT_EQ(ParseModelSettings(R"({"input":[{"name":"x","data_type":"TYPE_INVALID"}]})", &s),
            "input 'x' has data_type TYPE_INVALID, which the onnxruntime backend does not serve");
}

}  // namespace
}  // namespace inferd::onnxruntime

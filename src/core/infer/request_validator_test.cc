#include "core/infer/request_validator.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <cstring>

#include "core/infer/inference_request.h"

namespace inferd {
namespace {

inference::ModelConfig Config(const std::string& text) {
  inference::ModelConfig config;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config));
  return config;
}

const char* kBatching = R"(
  name: "m" max_batch_size: 8
  input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ -1, 4 ] } ]
  output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ -1, 4 ] } ]
)";

class RequestValidatorTest : public ::testing::Test {
 protected:
  // Adds an FP32-sized input of `shape` whose data is `bytes` long.
  void AddInput(const std::string& name, INFERD_DataType type, std::vector<int64_t> shape,
                size_t bytes) {
    data_.emplace_back(bytes, 0);
    ASSERT_TRUE(request_.AddInput(name, type, shape.data(), shape.size()).ok());
    ASSERT_TRUE(request_.AppendInputData(name, {data_.back().data(), bytes}).ok());
  }
  Status Validate(const inference::ModelConfig& config) {
    auto all = std::make_shared<const std::vector<std::string>>(
        std::vector<std::string>{"OUTPUT0"});
    return ValidateRequest(config, all, &request_);
  }

  InferenceRequest request_{"m", -1};
  std::vector<std::vector<char>> data_;
};

TEST_F(RequestValidatorTest, AcceptsAMatchingBatchAndSetsBatchSize) {
  AddInput("INPUT0", INFERD_TYPE_FP32, {3, 2, 4}, 3 * 2 * 4 * 4);
  ASSERT_TRUE(Validate(Config(kBatching)).ok());
  EXPECT_EQ(request_.batch_size, 3u);
  ASSERT_TRUE(request_.outputs);
  EXPECT_EQ(*request_.outputs, std::vector<std::string>({"OUTPUT0"}));
}

TEST_F(RequestValidatorTest, RejectsBatchAboveMaxBatchSize) {
  AddInput("INPUT0", INFERD_TYPE_FP32, {9, 1, 4}, 9 * 4 * 4);
  Status status = Validate(Config(kBatching));
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_NE(status.message().find("batch size 9"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("max_batch_size"), std::string::npos);
}

TEST_F(RequestValidatorTest, RejectsWrongDatatypeNamingBoth) {
  AddInput("INPUT0", INFERD_TYPE_FP64, {1, 1, 4}, 4 * 8);
  Status status = Validate(Config(kBatching));
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_NE(status.message().find("'INPUT0'"), std::string::npos);
  EXPECT_NE(status.message().find("FP64"), std::string::npos);
  EXPECT_NE(status.message().find("FP32"), std::string::npos);
}

TEST_F(RequestValidatorTest, RejectsWrongShapeShowingTheExpectedOne) {
  AddInput("INPUT0", INFERD_TYPE_FP32, {1, 2, 5}, 10 * 4);
  Status status = Validate(Config(kBatching));
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_NE(status.message().find("[1,2,5]"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("[-1,-1,4]"), std::string::npos) << status.message();
}

TEST_F(RequestValidatorTest, RejectsDataSizeNotMatchingShape) {
  AddInput("INPUT0", INFERD_TYPE_FP32, {1, 1, 4}, 12);
  Status status = Validate(Config(kBatching));
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_NE(status.message().find("12 bytes"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("needs 16"), std::string::npos) << status.message();
}

// Found by grpc_infer_fuzz: the element count of such a shape overflowed
// (undefined behaviour), and a count that wrapped to a small number could
// match the data sent.
TEST_F(RequestValidatorTest, RejectsAShapeWhoseElementCountOverflows) {
  const int64_t huge = int64_t{1} << 62;
  AddInput("INPUT0", INFERD_TYPE_FP32, {4, huge, 4}, 0);
  Status status = Validate(Config(kBatching));
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_NE(status.message().find("more elements than any request can hold"), std::string::npos)
      << status.message();
}

TEST_F(RequestValidatorTest, RejectsAShapeWhoseByteSizeOverflows) {
  // 2^62 elements fit in 64 bits; their FP32 bytes do not (and wrap to 0).
  AddInput("INPUT0", INFERD_TYPE_FP32, {1, int64_t{1} << 60, 4}, 0);
  Status status = Validate(Config(kBatching));
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_NE(status.message().find("more elements than any request can hold"), std::string::npos)
      << status.message();
}

TEST_F(RequestValidatorTest, RejectsMissingAndUnknownInputs) {
  Status missing = Validate(Config(kBatching));
  EXPECT_NE(missing.message().find("missing input 'INPUT0'"), std::string::npos);
  AddInput("INPUT0", INFERD_TYPE_FP32, {1, 1, 4}, 16);
  AddInput("EXTRA", INFERD_TYPE_FP32, {1, 1, 4}, 16);
  Status unknown = Validate(Config(kBatching));
  EXPECT_NE(unknown.message().find("no input 'EXTRA'"), std::string::npos) << unknown.message();
}

TEST_F(RequestValidatorTest, RejectsUnknownRequestedOutput) {
  AddInput("INPUT0", INFERD_TYPE_FP32, {1, 1, 4}, 16);
  request_.requested_outputs.push_back("NOPE");
  Status status = Validate(Config(kBatching));
  EXPECT_NE(status.message().find("no output 'NOPE'"), std::string::npos);
}

TEST_F(RequestValidatorTest, NonBatchingModelComparesTheWholeShape) {
  auto config = Config(R"(name: "m" max_batch_size: 0
    input [ { name: "INPUT0" data_type: TYPE_INT32 dims: [ 2, 2 ] } ]
    output [ { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 2, 2 ] } ])");
  AddInput("INPUT0", INFERD_TYPE_INT32, {2, 2}, 16);
  ASSERT_TRUE(Validate(config).ok());
  EXPECT_EQ(request_.batch_size, 0u);
}

TEST_F(RequestValidatorTest, ReshapeGivesTheBackendTheReshapedDims) {
  auto config = Config(R"(name: "m" max_batch_size: 4
    input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] reshape { shape: [ 2, 2 ] } } ]
    output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 4 ] } ])");
  AddInput("INPUT0", INFERD_TYPE_FP32, {3, 4}, 3 * 4 * 4);
  ASSERT_TRUE(Validate(config).ok());
  EXPECT_EQ(request_.inputs()[0].shape, std::vector<int64_t>({3, 2, 2}));
  EXPECT_EQ(request_.inputs()[0].original_shape, std::vector<int64_t>({3, 4}));
}

// Serializes BYTES elements as the protocol does: 4-byte LE length + bytes.
std::string Serialize(const std::vector<std::string>& elements) {
  std::string out;
  for (const std::string& e : elements) {
    uint32_t n = static_cast<uint32_t>(e.size());
    out.append(reinterpret_cast<const char*>(&n), 4);
    out += e;
  }
  return out;
}

TEST(BytesTensorTest, CountsElementsAcrossBufferBoundaries) {
  std::string data = Serialize({"hello", "", "world!"});
  InputTensor input;
  input.name = "TEXT";
  input.original_shape = {3};
  // Split mid-prefix and mid-element.
  input.buffers = {{data.data(), 2}, {data.data() + 2, 7}, {data.data() + 9, data.size() - 9}};
  EXPECT_TRUE(ValidateBytesTensor(input, 3).ok());
  Status wrong_count = ValidateBytesTensor(input, 4);
  EXPECT_NE(wrong_count.message().find("holds 3 element"), std::string::npos);
}

TEST(BytesTensorTest, RejectsTruncatedElement) {
  std::string data = Serialize({"hello"});
  InputTensor input;
  input.name = "TEXT";
  input.original_shape = {1};
  input.buffers = {{data.data(), data.size() - 1}};
  Status status = ValidateBytesTensor(input, 1);
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_NE(status.message().find("ends inside an element"), std::string::npos);
}

}  // namespace
}  // namespace inferd

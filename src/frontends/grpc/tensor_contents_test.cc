// Typed gRPC contents -> raw tensor bytes: borrowing, narrowing, FP16/BF16,
// BYTES serialization and the errors that name the input.
#include "grpc/tensor_contents.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace inferd::grpc_frontend {
namespace {

using inference::InferTensorContents;

std::string Bytes(const TensorData& data) {
  return std::string(static_cast<const char*>(data.base), data.byte_size);
}

TEST(TensorContentsTest, BorrowsFp32ContentsWithoutCopying) {
  InferTensorContents contents;
  contents.add_fp32_contents(1.5f);
  contents.add_fp32_contents(-2.0f);
  std::vector<std::unique_ptr<char[]>> owned;
  TensorData data;
  ASSERT_TRUE(ContentsToTensor(contents, INFERD_TYPE_FP32, 2, "IN", &owned, &data).ok());
  EXPECT_EQ(data.base, contents.fp32_contents().data());
  EXPECT_EQ(data.byte_size, 8u);
  EXPECT_TRUE(owned.empty());
}

TEST(TensorContentsTest, NarrowsInt8AndRefusesOutOfRangeValues) {
  InferTensorContents contents;
  contents.add_int_contents(-128);
  contents.add_int_contents(127);
  std::vector<std::unique_ptr<char[]>> owned;
  TensorData data;
  ASSERT_TRUE(ContentsToTensor(contents, INFERD_TYPE_INT8, 2, "IN", &owned, &data).ok());
  EXPECT_EQ(Bytes(data), std::string("\x80\x7f", 2));

  contents.add_int_contents(128);
  const Status status = ContentsToTensor(contents, INFERD_TYPE_INT8, 3, "IN", &owned, &data);
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_NE(status.message().find("'IN'"), std::string::npos);
  EXPECT_NE(status.message().find("out of range for INT8"), std::string::npos);
}

TEST(TensorContentsTest, ConvertsFp32ContentsToFp16AndBf16) {
  InferTensorContents contents;
  contents.add_fp32_contents(1.0f);
  std::vector<std::unique_ptr<char[]>> owned;
  TensorData data;
  ASSERT_TRUE(ContentsToTensor(contents, INFERD_TYPE_FP16, 1, "IN", &owned, &data).ok());
  EXPECT_EQ(Bytes(data), std::string("\x00\x3c", 2));
  ASSERT_TRUE(ContentsToTensor(contents, INFERD_TYPE_BF16, 1, "IN", &owned, &data).ok());
  EXPECT_EQ(Bytes(data), std::string("\x80\x3f", 2));
}

TEST(TensorContentsTest, SerializesBytesWithLengthPrefixes) {
  InferTensorContents contents;
  contents.add_bytes_contents("ab");
  contents.add_bytes_contents("");
  std::vector<std::unique_ptr<char[]>> owned;
  TensorData data;
  ASSERT_TRUE(ContentsToTensor(contents, INFERD_TYPE_BYTES, 2, "IN", &owned, &data).ok());
  EXPECT_EQ(Bytes(data), std::string("\x02\x00\x00\x00" "ab" "\x00\x00\x00\x00", 10));
}

TEST(TensorContentsTest, RefusesCountThatDoesNotMatchTheShape) {
  InferTensorContents contents;
  contents.add_int64_contents(1);
  std::vector<std::unique_ptr<char[]>> owned;
  TensorData data;
  const Status status = ContentsToTensor(contents, INFERD_TYPE_INT64, 2, "IN", &owned, &data);
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_NE(status.message().find("holds 1 elements but its shape needs 2"),
            std::string::npos);
}

TEST(TensorContentsTest, RefusesTheWrongFieldForTheDatatype) {
  InferTensorContents contents;
  contents.add_int_contents(1);
  std::vector<std::unique_ptr<char[]>> owned;
  TensorData data;
  const Status status = ContentsToTensor(contents, INFERD_TYPE_FP32, 1, "IN", &owned, &data);
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_NE(status.message().find("fp32_contents, but int_contents is set"),
            std::string::npos);
}

}  // namespace
}  // namespace inferd::grpc_frontend

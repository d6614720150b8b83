// The status-code table of the gRPC frontend and the conversion at its edge.
#include "grpc/grpc_status.h"

#include <gtest/gtest.h>

namespace inferd::grpc_frontend {
namespace {

using Code = Status::Code;

TEST(GrpcStatusTest, MapsEveryCodeToTritonsGrpcCode) {
  EXPECT_EQ(GrpcCodeFromCode(Code::kOk), grpc::StatusCode::OK);
  EXPECT_EQ(GrpcCodeFromCode(Code::kUnknown), grpc::StatusCode::UNKNOWN);
  EXPECT_EQ(GrpcCodeFromCode(Code::kInternal), grpc::StatusCode::INTERNAL);
  EXPECT_EQ(GrpcCodeFromCode(Code::kNotFound), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(GrpcCodeFromCode(Code::kInvalidArg), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(GrpcCodeFromCode(Code::kUnavailable), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(GrpcCodeFromCode(Code::kUnsupported), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(GrpcCodeFromCode(Code::kAlreadyExists), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(GrpcCodeFromCode(Code::kCancelled), grpc::StatusCode::CANCELLED);
  EXPECT_EQ(GrpcCodeFromCode(Code::kResourceExhausted), grpc::StatusCode::RESOURCE_EXHAUSTED);
}

TEST(GrpcStatusTest, KeepsTheMessage) {
  const grpc::Status status = ToGrpcStatus(Status::NotFound("model 'm' not found"));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(status.error_message(), "model 'm' not found");
}

TEST(GrpcStatusTest, OkIsOk) { EXPECT_TRUE(ToGrpcStatus(Status::Ok()).ok()); }

}  // namespace
}  // namespace inferd::grpc_frontend

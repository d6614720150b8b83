// The error-code table and server-error conversion of the gRPC frontend.
#include "grpc/grpc_status.h"

#include <gtest/gtest.h>

namespace inferd::grpc_frontend {
namespace {

TEST(GrpcStatusTest, MapsEveryErrorCodeToTritonsGrpcCode) {
  EXPECT_EQ(GrpcCodeFromErrorCode(INFERD_ERROR_UNKNOWN), grpc::StatusCode::UNKNOWN);
  EXPECT_EQ(GrpcCodeFromErrorCode(INFERD_ERROR_INTERNAL), grpc::StatusCode::INTERNAL);
  EXPECT_EQ(GrpcCodeFromErrorCode(INFERD_ERROR_NOT_FOUND), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(GrpcCodeFromErrorCode(INFERD_ERROR_INVALID_ARG), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(GrpcCodeFromErrorCode(INFERD_ERROR_UNAVAILABLE), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(GrpcCodeFromErrorCode(INFERD_ERROR_UNSUPPORTED), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(GrpcCodeFromErrorCode(INFERD_ERROR_ALREADY_EXISTS),
            grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(GrpcCodeFromErrorCode(INFERD_ERROR_CANCELLED), grpc::StatusCode::CANCELLED);
}

TEST(GrpcStatusTest, ConvertsServerErrorWithItsMessage) {
  const grpc::Status status =
      StatusFromServerError(INFERD_ErrorNew(INFERD_ERROR_NOT_FOUND, "model 'm' not found"));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(status.error_message(), "model 'm' not found");
}

TEST(GrpcStatusTest, NullErrorIsOk) {
  EXPECT_TRUE(StatusFromServerError(nullptr).ok());
  EXPECT_TRUE(StatusFromBorrowedError(nullptr).ok());
}

}  // namespace
}  // namespace inferd::grpc_frontend

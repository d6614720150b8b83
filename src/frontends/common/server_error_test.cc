// Server API errors to Status and back, codes and messages intact.
#include "common/server_error.h"

#include <gtest/gtest.h>

namespace inferd {
namespace {

TEST(ServerErrorTest, NullErrorIsOk) {
  EXPECT_TRUE(StatusFromServerError(nullptr).ok());
  EXPECT_TRUE(StatusFromBorrowedError(nullptr).ok());
  EXPECT_EQ(ServerErrorFromStatus(Status::Ok()), nullptr);
}

TEST(ServerErrorTest, KeepsEveryCodeAndTheMessage) {
  const INFERD_Error_Code codes[] = {
      INFERD_ERROR_UNKNOWN,     INFERD_ERROR_INTERNAL,    INFERD_ERROR_NOT_FOUND,
      INFERD_ERROR_INVALID_ARG, INFERD_ERROR_UNAVAILABLE, INFERD_ERROR_UNSUPPORTED,
      INFERD_ERROR_ALREADY_EXISTS, INFERD_ERROR_CANCELLED, INFERD_ERROR_RESOURCE_EXHAUSTED};
  for (const INFERD_Error_Code code : codes) {
    const Status status = StatusFromServerError(INFERD_ErrorNew(code, "model 'm' not found"));
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(static_cast<int>(status.code()), static_cast<int>(code));
    EXPECT_EQ(status.message(), "model 'm' not found");
    INFERD_Error* back = ServerErrorFromStatus(status);
    ASSERT_NE(back, nullptr);
    EXPECT_EQ(INFERD_ErrorCode(back), code);
    EXPECT_STREQ(INFERD_ErrorMessage(back), "model 'm' not found");
    INFERD_ErrorDelete(back);
  }
}

TEST(ServerErrorTest, OnlyAdmissionControlGivesRetryAdvice) {
  INFERD_Error* error = INFERD_ErrorNew(INFERD_ERROR_RESOURCE_EXHAUSTED, "too many");
  EXPECT_EQ(INFERD_ErrorRetryAfterMs(error), 0u);  // made here, without advice
  EXPECT_EQ(StatusFromServerError(error).retry_after_ms(), 0u);
  EXPECT_EQ(INFERD_ErrorRetryAfterMs(nullptr), 0u);
}

TEST(ServerErrorTest, BorrowedErrorIsCopiedNotFreed) {
  INFERD_Error* error = INFERD_ErrorNew(INFERD_ERROR_UNAVAILABLE, "model is loading");
  const Status status = StatusFromBorrowedError(error);
  EXPECT_EQ(status.code(), Status::Code::kUnavailable);
  EXPECT_STREQ(INFERD_ErrorMessage(error), "model is loading");  // still the caller's
  INFERD_ErrorDelete(error);
}

}  // namespace
}  // namespace inferd

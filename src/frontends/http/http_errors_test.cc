// Error codes -> HTTP statuses, and the JSON error body.
#include "http/http_errors.h"

#include <gtest/gtest.h>

namespace inferd::http {
namespace {

TEST(HttpErrorsTest, MapsErrorCodesAsTritonDoes) {
  EXPECT_EQ(HttpStatusFromErrorCode(INFERD_ERROR_INTERNAL), 500u);
  EXPECT_EQ(HttpStatusFromErrorCode(INFERD_ERROR_NOT_FOUND), 404u);
  EXPECT_EQ(HttpStatusFromErrorCode(INFERD_ERROR_UNAVAILABLE), 503u);
  EXPECT_EQ(HttpStatusFromErrorCode(INFERD_ERROR_UNSUPPORTED), 501u);
  EXPECT_EQ(HttpStatusFromErrorCode(INFERD_ERROR_UNKNOWN), 400u);
  EXPECT_EQ(HttpStatusFromErrorCode(INFERD_ERROR_INVALID_ARG), 400u);
  EXPECT_EQ(HttpStatusFromErrorCode(INFERD_ERROR_ALREADY_EXISTS), 400u);
  EXPECT_EQ(HttpStatusFromErrorCode(INFERD_ERROR_CANCELLED), 400u);
}

TEST(HttpErrorsTest, StatusCarriesHttpStatusAndMessage) {
  const Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.http_status(), 200u);
  const Status missing = Status::NotFound("model 'x' not found");
  EXPECT_FALSE(missing.ok());
  EXPECT_EQ(missing.http_status(), 404u);
  EXPECT_EQ(missing.message(), "model 'x' not found");
  const Status copy = missing;
  EXPECT_EQ(copy.message(), missing.message());
  EXPECT_EQ(Status::WithHttpStatus(405, "no").http_status(), 405u);
}

TEST(HttpErrorsTest, ConvertsAndFreesServerErrors) {
  EXPECT_TRUE(Status::FromServerError(nullptr).ok());
  const Status status =
      Status::FromServerError(INFERD_ErrorNew(INFERD_ERROR_UNAVAILABLE, "model is loading"));
  EXPECT_EQ(status.http_status(), 503u);
  EXPECT_EQ(status.message(), "model is loading");
}

TEST(HttpErrorsTest, ErrorJsonEscapesTheMessage) {
  EXPECT_EQ(ErrorJson("bad \"input\"\n"), R"({"error":"bad \"input\"\n"})");
}

}  // namespace
}  // namespace inferd::http

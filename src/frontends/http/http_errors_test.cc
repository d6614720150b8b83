// Status codes -> HTTP statuses, framing errors, and the JSON error body.
#include "http/http_errors.h"

#include <gtest/gtest.h>

namespace inferd::http {
namespace {

using Code = Status::Code;

TEST(HttpErrorsTest, MapsStatusCodesAsTritonDoes) {
  EXPECT_EQ(HttpStatusFromCode(Code::kOk), 200u);
  EXPECT_EQ(HttpStatusFromCode(Code::kInternal), 500u);
  EXPECT_EQ(HttpStatusFromCode(Code::kNotFound), 404u);
  EXPECT_EQ(HttpStatusFromCode(Code::kUnavailable), 503u);
  EXPECT_EQ(HttpStatusFromCode(Code::kUnsupported), 501u);
  EXPECT_EQ(HttpStatusFromCode(Code::kUnknown), 400u);
  EXPECT_EQ(HttpStatusFromCode(Code::kInvalidArg), 400u);
  EXPECT_EQ(HttpStatusFromCode(Code::kAlreadyExists), 400u);
  EXPECT_EQ(HttpStatusFromCode(Code::kCancelled), 400u);
  EXPECT_EQ(HttpStatusFromCode(Code::kResourceExhausted), 429u);  // inferd's admission control
}

TEST(HttpErrorsTest, PlainStatusIsAnsweredByTheTable) {
  const HttpError ok = Status::Ok();
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.http_status(), 200u);
  const HttpError missing = Status::NotFound("model 'x' not found");
  EXPECT_FALSE(missing.ok());
  EXPECT_EQ(missing.http_status(), 404u);
  EXPECT_EQ(missing.message(), "model 'x' not found");
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
}

TEST(HttpErrorsTest, FramingErrorKeepsItsOwnHttpStatus) {
  const HttpError error(405, Status::Unsupported("method not allowed; use GET"));
  EXPECT_FALSE(error.ok());
  EXPECT_EQ(error.http_status(), 405u);
  EXPECT_EQ(error.message(), "method not allowed; use GET");
  EXPECT_EQ(HttpError(413, Status::Ok()).http_status(), 200u);  // OK stays OK
}

TEST(HttpErrorsTest, ErrorJsonEscapesTheMessage) {
  EXPECT_EQ(ErrorJson("bad \"input\"\n"), R"({"error":"bad \"input\"\n"})");
}

}  // namespace
}  // namespace inferd::http

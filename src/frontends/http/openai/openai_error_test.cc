#include "http/openai/openai_error.h"

#include <gtest/gtest.h>

namespace inferd::http::openai {
namespace {

TEST(OpenAiErrorTest, A429IsOpenAisRateLimitErrorWithRetryHeaders) {
  const ApiError error =
      FromStatus(Status::ResourceExhausted("model 'm' is overloaded; retry after 2 s", 1500), 429);
  EXPECT_EQ(error.http_status, 429u);
  EXPECT_EQ(error.type, "requests");
  EXPECT_EQ(error.code, "rate_limit_exceeded");
  // Whole seconds rounded up for HTTP; the milliseconds for the openai client.
  EXPECT_EQ(error.headers, "Retry-After: 2\r\nretry-after-ms: 1500\r\n");
}

TEST(OpenAiErrorTest, ErrorsWithoutAdviceHaveNoRetryHeaders) {
  const ApiError unavailable = FromStatus(Status::Unavailable("queue full"), 503);
  EXPECT_EQ(unavailable.type, "server_error");
  EXPECT_EQ(unavailable.headers, "");
  const ApiError bad = FromStatus(Status::InvalidArg("no"), 400);
  EXPECT_EQ(bad.type, "invalid_request_error");
  EXPECT_TRUE(bad.code.empty());
}

}  // namespace
}  // namespace inferd::http::openai

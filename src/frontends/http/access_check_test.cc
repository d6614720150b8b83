// API keys on the HTTP port: each endpoint's scope, and the answers to refusals.
#include "http/access_check.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>

#include "common/auth/hex_hash_for_tests.h"

namespace inferd::http {
namespace {

class Headers final : public RequestHeaders {
 public:
  explicit Headers(std::string authorization) : authorization_(std::move(authorization)) {}
  std::string_view Get(std::string_view name) const override {
    return name == "authorization" ? std::string_view(authorization_) : std::string_view();
  }

 private:
  std::string authorization_;
};

class AccessCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char path[] = "/tmp/inferd_access_check_XXXXXX";
    const int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    path_ = path;
    std::ofstream(path_) << "{\"keys\": [{\"name\": \"ci\", \"sha256\": \"" << auth::HexHash("s")
                         << "\", \"scopes\": [\"infer\"], \"models\": [\"fraud_*\"], "
                            "\"rate_limit_rps\": 0.001, \"burst\": 2}]}";
    auto opened = auth::AccessControl::Open(path_);
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    access_ = std::move(opened).value();
  }
  void TearDown() override { std::remove(path_.c_str()); }

  auth::AccessDecision Check(Endpoint endpoint, const std::string& model,
                             const std::string& authorization) {
    Route route;
    route.endpoint = endpoint;
    route.model = model;
    return CheckAccess(*access_, route, Headers(authorization));
  }

  std::string path_;
  std::unique_ptr<auth::AccessControl> access_;
};

TEST_F(AccessCheckTest, HealthNeedsNoKey) {
  EXPECT_TRUE(Check(Endpoint::kHealthReady, "", "").allowed());
  EXPECT_TRUE(Check(Endpoint::kModelReady, "m", "").allowed());
}

TEST_F(AccessCheckTest, InferIsCheckedAgainstTheRoutesModel) {
  EXPECT_EQ(Check(Endpoint::kModelInfer, "other", "Bearer s").verdict, auth::Verdict::kForbidden);
  EXPECT_TRUE(Check(Endpoint::kModelGenerate, "fraud_a", "Bearer s").allowed());
  // An OpenAI completion's model is in its body: checked later.
  EXPECT_TRUE(Check(Endpoint::kOpenAiCompletions, "", "Bearer s").allowed());
  EXPECT_EQ(Check(Endpoint::kModelMetadata, "fraud_a", "Bearer s").verdict,
            auth::Verdict::kForbidden);
}

TEST_F(AccessCheckTest, RefusalsAnswer401403And429WithTheirHeaders) {
  const HttpError unauthenticated = AccessError(Check(Endpoint::kServerMetadata, "", ""));
  EXPECT_EQ(unauthenticated.http_status(), 401u);
  EXPECT_EQ(unauthenticated.headers(), "WWW-Authenticate: Bearer\r\n");
  const HttpError forbidden = AccessError(Check(Endpoint::kRepositoryIndex, "", "Bearer s"));
  EXPECT_EQ(forbidden.http_status(), 403u);
  EXPECT_EQ(forbidden.message(), "API key 'ci' does not have the 'repository' scope");
  EXPECT_TRUE(forbidden.headers().empty());
  EXPECT_TRUE(Check(Endpoint::kModelInfer, "fraud_a", "Bearer s").allowed());
  EXPECT_TRUE(Check(Endpoint::kModelInfer, "fraud_a", "Bearer s").allowed());  // burst 2
  const HttpError over = AccessError(Check(Endpoint::kModelInfer, "fraud_a", "Bearer s"));
  EXPECT_EQ(over.http_status(), 429u);
  // The advice travels in the status, which WriteError turns into Retry-After.
  EXPECT_EQ(over.status().code(), Status::Code::kResourceExhausted);
  EXPECT_EQ(over.status().retry_after_ms(), 1'000'000u);
  EXPECT_EQ(over.headers(), "");
  EXPECT_TRUE(AccessError(Check(Endpoint::kHealthLive, "", "")).ok());
}

}  // namespace
}  // namespace inferd::http

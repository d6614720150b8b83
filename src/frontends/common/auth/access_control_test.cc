// The check every request makes, reloads, quotas in simulated time, metrics.
#include "common/auth/access_control.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "common/auth/hex_hash_for_tests.h"

namespace inferd::auth {
namespace {

std::string Key(const std::string& name, const std::string& secret, const std::string& scopes,
                const std::string& extra = "") {
  return "{\"name\": \"" + name + "\", \"sha256\": \"" + HexHash(secret) + "\", \"scopes\": [" +
         scopes + "]" + extra + "}";
}

class AccessControlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char folder[] = "/tmp/inferd_access_XXXXXX";
    ASSERT_NE(mkdtemp(folder), nullptr);
    path_ = std::string(folder) + "/keys.json";
  }
  void TearDown() override {
    std::remove(path_.c_str());
    rmdir(path_.substr(0, path_.rfind('/')).c_str());
  }
  void Write(const std::string& keys) { std::ofstream(path_) << "{\"keys\": [" << keys << "]}"; }
  std::unique_ptr<AccessControl> Open() {
    auto opened = AccessControl::Open(path_, [this] { return now_; });
    EXPECT_TRUE(opened.ok()) << opened.status().message();
    return opened.ok() ? std::move(opened).value() : nullptr;
  }

  std::string path_;
  std::chrono::steady_clock::time_point now_{};
};

TEST_F(AccessControlTest, MissingOrUnknownKeysAreUnauthenticated) {
  Write(Key("ci", "ci-secret", "\"infer\""));
  auto access = Open();
  EXPECT_EQ(access->Check("", Scope::kInfer).verdict, Verdict::kUnauthenticated);
  EXPECT_EQ(access->Check("Basic Y2k6eA==", Scope::kInfer).verdict, Verdict::kUnauthenticated);
  EXPECT_EQ(access->Check("Bearer ", Scope::kInfer).verdict, Verdict::kUnauthenticated);
  const AccessDecision wrong = access->Check("Bearer ci-secreT", Scope::kInfer);
  EXPECT_EQ(wrong.verdict, Verdict::kUnauthenticated);
  EXPECT_EQ(wrong.message, "the API key is not valid");
  EXPECT_EQ(wrong.key, nullptr);
  EXPECT_TRUE(access->Check("bearer   ci-secret ", Scope::kInfer).allowed());
}

TEST_F(AccessControlTest, AKnownKeyIsForbiddenWhatItsScopesAndModelsDoNotName) {
  Write(Key("ci", "ci-secret", "\"infer\", \"metadata\"", ", \"models\": [\"fraud_*\"]") + "," +
        Key("ops", "ops-secret", "\"admin\""));
  auto access = Open();
  EXPECT_TRUE(access->Check("Bearer ci-secret", Scope::kMetadata).allowed());
  EXPECT_TRUE(access->Check("Bearer ci-secret", Scope::kInfer, "fraud_a").allowed());
  const AccessDecision scope = access->Check("Bearer ci-secret", Scope::kRepository);
  EXPECT_EQ(scope.verdict, Verdict::kForbidden);
  EXPECT_EQ(scope.message, "API key 'ci' does not have the 'repository' scope");
  const AccessDecision model = access->Check("Bearer ci-secret", Scope::kInfer, "identity_fp32");
  EXPECT_EQ(model.verdict, Verdict::kForbidden);
  EXPECT_EQ(model.message,
            "API key 'ci' may not infer with model 'identity_fp32' (its models: fraud_*)");
  for (size_t i = 0; i < kScopeCount; ++i) {
    EXPECT_TRUE(access->Check("Bearer ops-secret", static_cast<Scope>(i), "any").allowed());
  }
}

TEST_F(AccessControlTest, AModelNamedLaterIsCheckedAndCountedOnce) {
  Write(Key("ci", "ci-secret", "\"infer\"", ", \"models\": [\"fraud_*\"]"));
  auto access = Open();
  AccessDecision first = access->Check("Bearer ci-secret", Scope::kInfer, std::nullopt, false);
  ASSERT_TRUE(first.allowed());
  EXPECT_EQ(access->FinishModelCheck(first, "other").verdict, Verdict::kForbidden);
  EXPECT_TRUE(access->FinishModelCheck(first, "fraud_x").allowed());
  const std::string metrics = access->RenderMetrics();
  EXPECT_NE(metrics.find("inferd_auth_requests_total{key=\"ci\",result=\"allowed\"} 1\n"),
            std::string::npos);
  EXPECT_NE(metrics.find("inferd_auth_requests_total{key=\"ci\",result=\"forbidden\"} 1\n"),
            std::string::npos);
}

TEST_F(AccessControlTest, QuotaRefusesWithRetryAfterAndRefillsInSimulatedTime) {
  Write(Key("ci", "ci-secret", "\"infer\"", ", \"rate_limit_rps\": 2"));
  auto access = Open();
  EXPECT_TRUE(access->Check("Bearer ci-secret", Scope::kInfer).allowed());
  EXPECT_TRUE(access->Check("Bearer ci-secret", Scope::kInfer).allowed());
  const AccessDecision over = access->Check("Bearer ci-secret", Scope::kInfer);
  EXPECT_EQ(over.verdict, Verdict::kRateLimited);
  EXPECT_EQ(over.retry_after, std::chrono::seconds(1));
  EXPECT_EQ(over.message, "API key 'ci' is over its quota of 2 requests a second; retry after 1 s");
  now_ += std::chrono::milliseconds(500);
  EXPECT_TRUE(access->Check("Bearer ci-secret", Scope::kInfer).allowed());
  EXPECT_NE(access->RenderMetrics().find("key=\"ci\",result=\"rate_limited\"} 1\n"),
            std::string::npos);
}

TEST_F(AccessControlTest, StreamOpeningIsNeitherCountedNorChargedWhenAllowed) {
  Write(Key("ci", "ci-secret", "\"infer\"", ", \"rate_limit_rps\": 1, \"burst\": 1") + "," +
        Key("meta", "meta-secret", "\"metadata\""));
  auto access = Open();
  EXPECT_TRUE(access->CheckStreamOpen("Bearer ci-secret", Scope::kInfer).allowed());
  EXPECT_TRUE(access->CheckStreamOpen("Bearer ci-secret", Scope::kInfer).allowed());
  // The quota's one token is still there for the stream's first request.
  EXPECT_TRUE(access->Check("Bearer ci-secret", Scope::kInfer).allowed());
  EXPECT_EQ(access->CheckStreamOpen("Bearer meta-secret", Scope::kInfer).verdict,
            Verdict::kForbidden);
  EXPECT_EQ(access->CheckStreamOpen("Bearer nobody", Scope::kInfer).verdict,
            Verdict::kUnauthenticated);
  const std::string metrics = access->RenderMetrics();
  EXPECT_NE(metrics.find("key=\"ci\",result=\"allowed\"} 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("key=\"meta\",result=\"forbidden\"} 1\n"), std::string::npos);
  EXPECT_NE(metrics.find("{result=\"unauthenticated\"} 1\n"), std::string::npos);
}

TEST_F(AccessControlTest, ReloadSwapsKeysAndKeepsThePreviousOnError) {
  Write(Key("a", "a-secret", "\"infer\""));
  auto access = Open();
  AccessDecision held = access->Check("Bearer a-secret", Scope::kInfer);
  Write(Key("b", "b-secret", "\"infer\""));
  ASSERT_TRUE(access->Reload().ok());
  EXPECT_EQ(access->Check("Bearer a-secret", Scope::kInfer).verdict, Verdict::kUnauthenticated);
  EXPECT_TRUE(access->Check("Bearer b-secret", Scope::kInfer).allowed());
  EXPECT_EQ(held.key->name, "a");  // a request in flight keeps its snapshot
  std::ofstream(path_) << "{\"keys\": [\n{\"name\": \"c\"";
  const Status failed = access->Reload();
  EXPECT_NE(failed.message().find("keys.json:2: not valid JSON"), std::string::npos);
  EXPECT_TRUE(access->Check("Bearer b-secret", Scope::kInfer).allowed());
  const std::string metrics = access->RenderMetrics();
  EXPECT_NE(metrics.find("inferd_auth_reloads_total{result=\"success\"} 1\n"), std::string::npos);
  EXPECT_NE(metrics.find("inferd_auth_reloads_total{result=\"failure\"} 1\n"), std::string::npos);
  EXPECT_NE(metrics.find("inferd_auth_keys 1\n"), std::string::npos);
}

TEST_F(AccessControlTest, AQuotaSurvivesAReloadThatKeepsIt) {
  Write(Key("ci", "ci-secret", "\"infer\"", ", \"rate_limit_rps\": 1"));
  auto access = Open();
  EXPECT_TRUE(access->Check("Bearer ci-secret", Scope::kInfer).allowed());
  Write(Key("ci", "ci-secret", "\"infer\", \"metadata\"", ", \"rate_limit_rps\": 1"));
  ASSERT_TRUE(access->Reload().ok());
  EXPECT_EQ(access->Check("Bearer ci-secret", Scope::kInfer).verdict, Verdict::kRateLimited);
}

TEST_F(AccessControlTest, MetricsNameKeysNeverSecrets) {
  Write(Key("ci", "ci-secret", "\"infer\""));
  auto access = Open();
  (void)access->Check("Bearer ci-secret", Scope::kInfer);
  (void)access->Check("Bearer wrong-secret", Scope::kInfer);
  const std::string metrics = access->RenderMetrics();
  EXPECT_NE(metrics.find("inferd_auth_requests_total{result=\"unauthenticated\"} 1\n"),
            std::string::npos);
  EXPECT_EQ(metrics.find("secret"), std::string::npos);
  EXPECT_EQ(metrics.find(HexHash("ci-secret")), std::string::npos);
}

TEST_F(AccessControlTest, PriorityOfIsTheKeysAndCountsNothing) {
  Write(Key("batch", "batch-secret", "\"infer\"", ", \"priority\": 3") + "," +
        Key("plain", "plain-secret", "\"infer\""));
  auto access = Open();
  EXPECT_EQ(access->PriorityOf("Bearer batch-secret"), 3u);
  EXPECT_EQ(access->PriorityOf("Bearer plain-secret"), 0u);
  EXPECT_EQ(access->PriorityOf("Bearer unknown"), 0u);
  EXPECT_EQ(access->PriorityOf(""), 0u);
  EXPECT_NE(access->RenderMetrics().find("key=\"batch\",result=\"allowed\"} 0\n"),
            std::string::npos);
  EXPECT_NE(access->RenderMetrics().find("result=\"unauthenticated\"} 0\n"), std::string::npos);
}

TEST(BearerTokenTest, TakesTheTokenOfTheBearerSchemeOnly) {
  EXPECT_EQ(BearerToken("Bearer abc"), "abc");
  EXPECT_EQ(BearerToken("BEARER abc "), "abc");
  EXPECT_FALSE(BearerToken("Bearerabc").has_value());
  EXPECT_FALSE(BearerToken("abc").has_value());
  EXPECT_FALSE(BearerToken("Bearer  ").has_value());
}

}  // namespace
}  // namespace inferd::auth

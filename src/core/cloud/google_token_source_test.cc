#include "core/cloud/google_token_source.h"

#include <gtest/gtest.h>

#include "core/test_util/fake_cloud.h"

namespace inferd {
namespace {

const GoogleCredentialsFile kUser =
    GoogleAuthorizedUser{"id", "secret", "refresh", "http://127.0.0.1:9/token"};

struct Fixture : FakeCloud {
  explicit Fixture(ScriptedTransport::Responder responder)
      : FakeCloud(std::move(responder)), source(kUser, &http, [this] { return now_s; }) {}
  int64_t now_s = 1'000'000;
  GoogleTokenSource source;
};

HttpResponse Granted(const std::string& token) {
  return CloudAnswer(
      200, R"({"access_token": ")" + token + R"(", "expires_in": 3600, "token_type": "Bearer"})");
}

TEST(GoogleTokenSourceTest, PostsTheFormToTheTokenUriAndReusesTheTokenUntilNearItsExpiry) {
  int issued = 0;
  Fixture f([&](const HttpRequest&) { return Granted("t" + std::to_string(++issued)); });
  ASSERT_EQ(f.source.Token().value(), "t1");
  const HttpRequest sent = f.transport->sent().at(0);
  EXPECT_EQ(sent.method, "POST");
  EXPECT_EQ(sent.url, "http://127.0.0.1:9/token");
  EXPECT_EQ(sent.body.rfind("grant_type=refresh_token&", 0), 0u);

  f.now_s += 3600 - GoogleTokenSource::kRefreshMarginS - 1;  // still 301 s to go
  EXPECT_EQ(f.source.Token().value(), "t1");
  EXPECT_EQ(f.source.exchanges(), 1);
  f.now_s += 1;  // 300 s to go: renewed
  EXPECT_EQ(f.source.Token().value(), "t2");
  EXPECT_EQ(f.source.exchanges(), 2);
}

TEST(GoogleTokenSourceTest, ARefusalNamesTheEndpointItsErrorCodeAndWords) {
  Fixture f([](const HttpRequest&) {
    return CloudAnswer(
        400, R"({"error": "invalid_grant", "error_description": "Invalid JWT Signature."})");
  });
  auto token = f.source.Token();
  ASSERT_FALSE(token.ok());
  const std::string& message = token.status().message();
  EXPECT_NE(message.find("http://127.0.0.1:9/token"), std::string::npos) << message;
  EXPECT_NE(message.find("invalid_grant (HTTP 400): Invalid JWT Signature."), std::string::npos)
      << message;
  EXPECT_EQ(f.source.exchanges(), 0);
}

TEST(GoogleTokenSourceTest, AnOutageIsRetriedLikeAnyRequest) {
  int calls = 0;
  Fixture f([&](const HttpRequest&) {
    return ++calls < 3 ? CloudAnswer(503, "busy") : Granted("late");
  });
  EXPECT_EQ(f.source.Token().value(), "late");
  EXPECT_EQ(calls, 3);
}

TEST(GoogleTokenSourceTest, AnAnswerWithoutATokenIsAnError) {
  Fixture f([](const HttpRequest&) { return CloudAnswer(200, R"({"x": 1})"); });
  auto token = f.source.Token();
  ASSERT_FALSE(token.ok());
  EXPECT_NE(token.status().message().find("access_token"), std::string::npos);
}

}  // namespace
}  // namespace inferd

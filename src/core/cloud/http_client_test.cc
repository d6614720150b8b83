#include "core/cloud/http_client.h"

#include <gtest/gtest.h>

#include "core/test_util/fake_http.h"

namespace inferd {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

HttpResponse Answer(int status, std::string body = "") {
  return MakeHttpResponse(status, std::move(body));
}

HttpResponse NoAnswer(std::string why) {
  HttpResponse response;
  response.error = std::move(why);
  return response;
}

struct Fixture {
  explicit Fixture(std::deque<HttpResponse> script, double random = 0.5)
      : transport(std::make_shared<ScriptedTransport>(std::move(script))),
        client(transport, RetryPolicy{4, milliseconds(100), milliseconds(1000)}, &sleeper,
               [random] { return random; }) {}
  std::shared_ptr<ScriptedTransport> transport;
  RecordingSleeper sleeper;
  HttpClient client;
};

TEST(HttpClientTest, RetriesThrottlingAndServerErrorsWithGrowingBackoff) {
  Fixture f({Answer(503, "<Code>SlowDown</Code>"), Answer(429), Answer(500), Answer(200, "ok")});
  auto response = f.client.Send(HttpRequest{}, nullptr);
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "ok");
  EXPECT_EQ(response->attempts, 4);
  // Equal jitter at random 0.5: 3/4 of 100, 200, 400 ms.
  EXPECT_EQ(f.sleeper.waits(),
            (std::vector<nanoseconds>{milliseconds(75), milliseconds(150), milliseconds(300)}));
}

TEST(HttpClientTest, JitterStaysBetweenHalfAndAllOfTheCap) {
  Fixture low({Answer(503), Answer(200)}, 0.0);
  ASSERT_TRUE(low.client.Send(HttpRequest{}, nullptr).ok());
  Fixture high({Answer(503), Answer(200)}, 0.999);
  ASSERT_TRUE(high.client.Send(HttpRequest{}, nullptr).ok());
  EXPECT_EQ(low.sleeper.waits().at(0), milliseconds(50));
  EXPECT_GT(high.sleeper.waits().at(0), milliseconds(99));
  EXPECT_LE(high.sleeper.waits().at(0), milliseconds(100));
}

TEST(HttpClientTest, BackoffIsCappedAndHonoursRetryAfter) {
  Fixture f({});
  EXPECT_EQ(f.client.Backoff(10, Answer(503)), milliseconds(750));  // cap 1000 ms
  HttpResponse throttled = Answer(429);
  throttled.headers.emplace_back("retry-after", "1");
  EXPECT_EQ(f.client.Backoff(1, throttled), milliseconds(1000));
  throttled.headers.back().second = "30";  // never longer than max_backoff
  EXPECT_EQ(f.client.Backoff(1, throttled), milliseconds(1000));
}

TEST(HttpClientTest, GivesUpAfterMaxAttemptsWithTheLastAnswer) {
  Fixture f({Answer(503), NoAnswer("Connection refused"), Answer(502), Answer(504, "last")});
  auto response = f.client.Send(HttpRequest{}, nullptr);
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->status, 504);
  EXPECT_EQ(response->body, "last");
  EXPECT_EQ(response->attempts, 4);
  EXPECT_EQ(f.sleeper.waits().size(), 3u);
}

TEST(HttpClientTest, ClientErrorsComeBackAtOnce) {
  for (int status : {400, 403, 404}) {
    Fixture f({Answer(status)});
    auto response = f.client.Send(HttpRequest{}, nullptr);
    ASSERT_TRUE(response.ok());
    EXPECT_EQ(response->status, status);
    EXPECT_EQ(response->attempts, 1);
    EXPECT_TRUE(f.sleeper.waits().empty());
  }
}

TEST(HttpClientTest, ATruncatedBodyIsRetried) {
  HttpResponse short_body = Answer(200);
  short_body.body_bytes = 10;
  HttpResponse full_body = Answer(200);
  full_body.body_bytes = 100;
  Fixture f({short_body, full_body});
  HttpRequest request;
  request.expected_body_bytes = 100;
  auto response = f.client.Send(request, nullptr);
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->attempts, 2);

  Fixture always_short({short_body, short_body, short_body, short_body});
  auto failed = always_short.client.Send(request, nullptr);
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->status, 0);
  EXPECT_NE(failed->error.find("truncated transfer: 10 of 100 bytes"), std::string::npos);
}

TEST(HttpClientTest, EachAttemptIsSignedAfresh) {
  Fixture f({Answer(503), Answer(200)});
  int signatures = 0;
  HttpRequest request;
  request.headers.emplace_back("x-base", "1");
  auto response = f.client.Send(request, [&](HttpRequest* r) {
    r->headers.emplace_back("authorization", "sig-" + std::to_string(++signatures));
    return Status::Ok();
  });
  ASSERT_TRUE(response.ok());
  const auto sent = f.transport->sent();
  ASSERT_EQ(sent.size(), 2u);
  // The second attempt carries its own signature, not the first one's too.
  EXPECT_EQ(sent[1].headers, (HttpHeaders{{"x-base", "1"}, {"authorization", "sig-2"}}));
}

TEST(HttpClientTest, ASignerRefusalIsTheError) {
  Fixture f({Answer(200)});
  auto response = f.client.Send(HttpRequest{}, [](HttpRequest*) {
    return Status::InvalidArg("no credentials");
  });
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().message(), "no credentials");
  EXPECT_TRUE(f.transport->sent().empty());
}

}  // namespace
}  // namespace inferd

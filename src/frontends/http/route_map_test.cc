// The HTTP and metrics ports' route maps.
#include "http/route_map.h"

#include <gtest/gtest.h>

namespace inferd::http {
namespace {

class NoHeaders final : public RequestHeaders {
 public:
  std::string_view Get(std::string_view) const override { return {}; }
};

TEST(RouteMapTest, KServePortServesEverythingButMetrics) {
  const KServeRouteMap map;
  Route route;
  ASSERT_TRUE(map.Match(Method::kPost, "/v2/models/m/infer", NoHeaders(), &route).ok());
  EXPECT_EQ(route.endpoint, Endpoint::kModelInfer);
  EXPECT_EQ(map.Match(Method::kGet, "/metrics", NoHeaders(), &route).http_status(), 404u);
  EXPECT_TRUE(map.binary_content_type().empty());
  EXPECT_TRUE(map.compress_responses());
}

TEST(RouteMapTest, MetricsPortServesOnlyMetrics) {
  const MetricsRouteMap map;
  Route route;
  ASSERT_TRUE(map.Match(Method::kGet, "/metrics", NoHeaders(), &route).ok());
  EXPECT_EQ(route.endpoint, Endpoint::kMetrics);
  EXPECT_EQ(map.Match(Method::kGet, "/v2/health/ready", NoHeaders(), &route).http_status(), 404u);
}

TEST(RouteMapTest, KServePortServesTheOpenAiPathsUnlessTurnedOff) {
  const struct {
    Method method;
    std::string_view target;
    Endpoint endpoint;
  } kCases[] = {
      {Method::kGet, "/v1/models", Endpoint::kOpenAiModels},
      {Method::kGet, "/v1/models/a%2Fb", Endpoint::kOpenAiModel},
      {Method::kPost, "/v1/completions", Endpoint::kOpenAiCompletions},
      {Method::kPost, "/v1/chat/completions?x=1", Endpoint::kOpenAiChatCompletions},
      {Method::kPost, "/v1/embeddings", Endpoint::kOpenAiEmbeddings},
  };
  const KServeRouteMap on;
  const KServeRouteMap off(/*openai=*/false);
  EXPECT_TRUE(on.serves_openai());
  EXPECT_FALSE(off.serves_openai());
  for (const auto& c : kCases) {
    Route route;
    ASSERT_TRUE(on.Match(c.method, c.target, NoHeaders(), &route).ok()) << c.target;
    EXPECT_EQ(route.endpoint, c.endpoint) << c.target;
    EXPECT_TRUE(IsOpenAiEndpoint(route.endpoint));
    EXPECT_EQ(off.Match(c.method, c.target, NoHeaders(), &route).http_status(), 404u);
  }
  Route route;
  ASSERT_TRUE(on.Match(Method::kGet, "/v1/models/a%2Fb", NoHeaders(), &route).ok());
  EXPECT_EQ(route.model, "a/b");
  EXPECT_EQ(on.Match(Method::kGet, "/v1/completions", NoHeaders(), &route).http_status(), 405u);
  EXPECT_EQ(on.Match(Method::kPost, "/v1/files", NoHeaders(), &route).http_status(), 404u);
  EXPECT_EQ(on.Match(Method::kGet, "/v1/models/", NoHeaders(), &route).http_status(), 200u);
}

}  // namespace
}  // namespace inferd::http

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

}  // namespace
}  // namespace inferd::http

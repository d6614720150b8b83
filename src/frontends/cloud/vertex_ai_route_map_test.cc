// Vertex AI's health and predict routes, and the redirect header.
#include "cloud/vertex_ai_route_map.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace inferd::cloud {
namespace {

using http::Endpoint;
using http::Method;

class Headers final : public http::RequestHeaders {
 public:
  explicit Headers(std::map<std::string, std::string> fields = {}) : fields_(std::move(fields)) {}
  std::string_view Get(std::string_view name) const override {
    const auto found = fields_.find(std::string(name));
    return found == fields_.end() ? std::string_view() : std::string_view(found->second);
  }

 private:
  std::map<std::string, std::string> fields_;
};

const VertexAiRouteMap& Map() {
  static const VertexAiRouteMap map("/v1/m:predict", "/health", "simple");
  return map;
}

http::Route Redirected(Method method, const std::string& to, unsigned* status) {
  http::Route route;
  *status = Map()
                .Match(method, "/v1/m:predict",
                       Headers(std::map<std::string, std::string>{
                           {std::string(kVertexAiRedirectHeader), to}}),
                       &route)
                .http_status();
  return route;
}

TEST(VertexAiRouteMapTest, HealthAndPredictRoutes) {
  http::Route route;
  ASSERT_TRUE(Map().Match(Method::kGet, "/health", Headers(), &route).ok());
  EXPECT_EQ(route.endpoint, Endpoint::kHealthReady);
  ASSERT_TRUE(Map().Match(Method::kPost, "/v1/m:predict?x=1", Headers(), &route).ok());
  EXPECT_EQ(route.endpoint, Endpoint::kModelInfer);
  EXPECT_EQ(route.model, "simple");
  EXPECT_EQ(Map().Match(Method::kGet, "/v1/m:predict", Headers(), &route).http_status(), 405u);
  EXPECT_EQ(Map().Match(Method::kPost, "/health", Headers(), &route).http_status(), 405u);
  EXPECT_EQ(Map().Match(Method::kGet, "/v2/health/ready", Headers(), &route).http_status(), 400u);
}

TEST(VertexAiRouteMapTest, RedirectReachesKServeEndpointsWithTheirMethod) {
  unsigned status = 0;
  http::Route route = Redirected(Method::kPost, "v2/models/other/versions/2/infer", &status);
  EXPECT_EQ(status, 200u);
  EXPECT_EQ(route.endpoint, Endpoint::kModelInfer);
  EXPECT_EQ(route.model, "other");
  EXPECT_EQ(route.model_version, 2);
  EXPECT_EQ(Redirected(Method::kPost, "v2/models/other/config", &status).endpoint,
            Endpoint::kModelConfig);
  EXPECT_EQ(Redirected(Method::kPost, "v2/models/other", &status).endpoint,
            Endpoint::kModelMetadata);
  EXPECT_EQ(Redirected(Method::kPost, "v2/health/live", &status).endpoint, Endpoint::kHealthLive);
  EXPECT_EQ(Redirected(Method::kPost, "v2", &status).endpoint, Endpoint::kServerMetadata);
  EXPECT_EQ(Redirected(Method::kPost, "metrics", &status).endpoint, Endpoint::kMetrics);
  EXPECT_EQ(Redirected(Method::kPost, "v2/models/stats", &status).endpoint,
            Endpoint::kModelStats);
  EXPECT_EQ(Redirected(Method::kPost, "v2/repository/index", &status).endpoint,
            Endpoint::kRepositoryIndex);
  EXPECT_EQ(Redirected(Method::kPost, "v2/repository/models/other/load", &status).endpoint,
            Endpoint::kRepositoryLoad);
}

TEST(VertexAiRouteMapTest, RedirectToAnUnreachableEndpointIsRefused) {
  unsigned status = 0;
  Redirected(Method::kPost, "v2/logging", &status);
  EXPECT_EQ(status, 400u);
  Redirected(Method::kPost, "nowhere", &status);
  EXPECT_EQ(status, 400u);
  Redirected(Method::kPost, "v2/models/m/generate", &status);
  EXPECT_EQ(status, 400u);
}

}  // namespace
}  // namespace inferd::cloud

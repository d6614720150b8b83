// The --http-restricted-api category of every KServe v2 path.
#include "http/endpoint_category.h"

#include <gtest/gtest.h>

#include "http/route_map.h"

namespace inferd::http {
namespace {

class NoHeaders final : public RequestHeaders {
 public:
  std::string_view Get(std::string_view) const override { return {}; }
};

ApiCategory CategoryOf(Method method, std::string_view target) {
  Route route;
  const HttpError error = KServeRouteMap().Match(method, target, NoHeaders(), &route);
  EXPECT_TRUE(error.ok()) << target << ": " << error.message();
  return EndpointCategory(route.endpoint);
}

TEST(EndpointCategoryTest, PathsFallInTritonsCategories) {
  const struct {
    Method method;
    std::string_view target;
    ApiCategory category;
  } kCases[] = {
      {Method::kGet, "/v2/health/live", ApiCategory::kHealth},
      {Method::kGet, "/v2/health/ready", ApiCategory::kHealth},
      {Method::kGet, "/v2/models/m/ready", ApiCategory::kHealth},
      {Method::kGet, "/v2", ApiCategory::kMetadata},
      {Method::kGet, "/v2/models/m/versions/1", ApiCategory::kMetadata},
      {Method::kPost, "/v2/models/m/infer", ApiCategory::kInference},
      {Method::kPost, "/v2/models/m/generate", ApiCategory::kInference},
      {Method::kPost, "/v2/models/m/generate_stream", ApiCategory::kInference},
      {Method::kPost, "/v1/completions", ApiCategory::kInference},
      {Method::kPost, "/v1/chat/completions", ApiCategory::kInference},
      {Method::kPost, "/v1/embeddings", ApiCategory::kInference},
      {Method::kGet, "/v1/models", ApiCategory::kMetadata},
      {Method::kGet, "/v1/models/m", ApiCategory::kMetadata},
      {Method::kGet, "/v2/models/m/config", ApiCategory::kModelConfig},
      {Method::kPost, "/v2/repository/index", ApiCategory::kModelRepository},
      {Method::kPost, "/v2/repository/models/m/load", ApiCategory::kModelRepository},
      {Method::kPost, "/v2/repository/models/m/unload", ApiCategory::kModelRepository},
      {Method::kGet, "/v2/models/stats", ApiCategory::kStatistics},
      {Method::kGet, "/v2/models/m/stats", ApiCategory::kStatistics},
      {Method::kGet, "/v2/logging", ApiCategory::kLogging},
      {Method::kPost, "/v2/logging", ApiCategory::kLogging},
      {Method::kGet, "/v2/systemsharedmemory/status", ApiCategory::kSharedMemory},
      {Method::kPost, "/v2/systemsharedmemory/region/r/register", ApiCategory::kSharedMemory},
      {Method::kPost, "/v2/systemsharedmemory/unregister", ApiCategory::kSharedMemory},
      {Method::kGet, "/v2/cudasharedmemory/status", ApiCategory::kSharedMemory},
      {Method::kGet, "/v2/trace/setting", ApiCategory::kTrace},
      {Method::kPost, "/v2/models/m/trace/setting", ApiCategory::kTrace},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(CategoryOf(c.method, c.target), c.category) << c.target;
  }
}

TEST(EndpointCategoryTest, MetricsAreNeverRestricted) {
  EXPECT_EQ(EndpointCategory(Endpoint::kMetrics), ApiCategory::kUnrestricted);
}

}  // namespace
}  // namespace inferd::http

// SageMaker's /ping and /invocations onto the KServe v2 endpoints.
#include "cloud/sagemaker_route_map.h"

#include <gtest/gtest.h>

namespace inferd::cloud {
namespace {

using http::Endpoint;
using http::Method;

class NoHeaders final : public http::RequestHeaders {
 public:
  std::string_view Get(std::string_view) const override { return {}; }
};

http::HttpError Match(const SageMakerRouteMap& map, Method method, std::string_view target,
                      http::Route* route) {
  return map.Match(method, target, NoHeaders(), route);
}

TEST(SageMakerRouteMapTest, PingIsReadinessOrLiveness) {
  http::Route route;
  ASSERT_TRUE(Match(SageMakerRouteMap(std::string("m"), false), Method::kGet, "/ping", &route).ok());
  EXPECT_EQ(route.endpoint, Endpoint::kHealthReady);
  ASSERT_TRUE(Match(SageMakerRouteMap(std::string("m"), true), Method::kGet, "/ping?x=1", &route)
                  .ok());
  EXPECT_EQ(route.endpoint, Endpoint::kHealthLive);
  EXPECT_EQ(Match(SageMakerRouteMap(std::string("m"), false), Method::kPost, "/ping", &route)
                .http_status(),
            405u);
}

TEST(SageMakerRouteMapTest, InvocationsInfersTheDefaultModel) {
  const SageMakerRouteMap map(std::string("simple"), false);
  http::Route route;
  ASSERT_TRUE(Match(map, Method::kPost, "/invocations", &route).ok());
  EXPECT_EQ(route.endpoint, Endpoint::kModelInfer);
  EXPECT_EQ(route.model, "simple");
  EXPECT_EQ(route.model_version, -1);
  EXPECT_EQ(Match(map, Method::kGet, "/invocations", &route).http_status(), 405u);
  EXPECT_EQ(map.binary_content_type(), kSageMakerBinaryContentType);
  EXPECT_FALSE(map.compress_responses());
}

TEST(SageMakerRouteMapTest, InvocationsWithoutADefaultModelSaysWhy) {
  const SageMakerRouteMap map(Status::InvalidArg("the repository holds 2 models"), false);
  http::Route route;
  const http::HttpError error = Match(map, Method::kPost, "/invocations", &route);
  EXPECT_EQ(error.http_status(), 400u);
  EXPECT_NE(error.message().find("the repository holds 2 models"), std::string::npos);
}

TEST(SageMakerRouteMapTest, OtherPathsAreRefused) {
  const SageMakerRouteMap map(std::string("m"), false);
  http::Route route;
  EXPECT_EQ(Match(map, Method::kGet, "/v2/health/ready", &route).http_status(), 400u);
  EXPECT_EQ(Match(map, Method::kGet, "/models", &route).http_status(), 501u);
  EXPECT_EQ(Match(map, Method::kPost, "/models/abc/invoke", &route).http_status(), 501u);
}

}  // namespace
}  // namespace inferd::cloud

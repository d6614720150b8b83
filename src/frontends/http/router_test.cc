// Route matching for the KServe v2 REST paths.
#include "http/router.h"

#include <gtest/gtest.h>

namespace inferd::http {
namespace {

Route Match(Method method, std::string_view target) {
  Route route;
  const HttpError error = MatchRoute(method, target, &route);
  EXPECT_TRUE(error.ok()) << target << ": " << error.message();
  return route;
}

unsigned MatchStatus(Method method, std::string_view target) {
  Route route;
  return MatchRoute(method, target, &route).http_status();
}

TEST(RouterTest, MatchesServerEndpoints) {
  EXPECT_EQ(Match(Method::kGet, "/v2/health/live").endpoint, Endpoint::kHealthLive);
  EXPECT_EQ(Match(Method::kGet, "/v2/health/ready").endpoint, Endpoint::kHealthReady);
  EXPECT_EQ(Match(Method::kGet, "/v2").endpoint, Endpoint::kServerMetadata);
  EXPECT_EQ(Match(Method::kGet, "/v2/").endpoint, Endpoint::kServerMetadata);
  EXPECT_EQ(Match(Method::kPost, "/v2/repository/index").endpoint, Endpoint::kRepositoryIndex);
}

TEST(RouterTest, MatchesModelEndpointsWithAndWithoutVersion) {
  Route route = Match(Method::kGet, "/v2/models/simple");
  EXPECT_EQ(route.endpoint, Endpoint::kModelMetadata);
  EXPECT_EQ(route.model, "simple");
  EXPECT_EQ(route.model_version, -1);
  route = Match(Method::kGet, "/v2/models/simple/versions/3");
  EXPECT_EQ(route.endpoint, Endpoint::kModelMetadata);
  EXPECT_EQ(route.model_version, 3);
  EXPECT_EQ(Match(Method::kGet, "/v2/models/m/ready").endpoint, Endpoint::kModelReady);
  EXPECT_EQ(Match(Method::kGet, "/v2/models/m/versions/1/config").endpoint,
            Endpoint::kModelConfig);
  route = Match(Method::kPost, "/v2/models/m/versions/12/infer");
  EXPECT_EQ(route.endpoint, Endpoint::kModelInfer);
  EXPECT_EQ(route.model, "m");
  EXPECT_EQ(route.model_version, 12);
}

TEST(RouterTest, MatchesGenerateEndpoints) {
  Route route = Match(Method::kPost, "/v2/models/llm/generate");
  EXPECT_EQ(route.endpoint, Endpoint::kModelGenerate);
  EXPECT_EQ(route.model, "llm");
  EXPECT_EQ(route.model_version, -1);
  route = Match(Method::kPost, "/v2/models/llm/versions/2/generate_stream");
  EXPECT_EQ(route.endpoint, Endpoint::kModelGenerateStream);
  EXPECT_EQ(route.model_version, 2);
  EXPECT_EQ(MatchStatus(Method::kGet, "/v2/models/llm/generate"), 405u);
  EXPECT_EQ(MatchStatus(Method::kGet, "/v2/models/llm/generate_stream"), 405u);
  EXPECT_EQ(MatchStatus(Method::kPost, "/v2/models/llm/generate/extra"), 404u);
}

TEST(RouterTest, UrlDecodesModelNames) {
  EXPECT_EQ(Match(Method::kPost, "/v2/models/my%20model%2Fv/infer").model, "my model/v");
  EXPECT_EQ(Match(Method::kGet, "/v2/models/a+b").model, "a+b");
  EXPECT_EQ(MatchStatus(Method::kGet, "/v2/models/bad%2/ready"), 400u);
  EXPECT_EQ(MatchStatus(Method::kGet, "/v2/models/bad%zz"), 400u);
}

TEST(RouterTest, UrlDecodeHandlesEscapes) {
  EXPECT_EQ(UrlDecode("a%41%62c"), "aAbc");
  EXPECT_EQ(UrlDecode("%"), std::nullopt);
  EXPECT_EQ(UrlDecode("%4"), std::nullopt);
  EXPECT_EQ(UrlDecode("%4g"), std::nullopt);
  EXPECT_EQ(UrlDecode(""), "");
}

TEST(RouterTest, IgnoresTheQueryString) {
  EXPECT_EQ(Match(Method::kGet, "/v2/health/ready?verbose=1").endpoint, Endpoint::kHealthReady);
}

TEST(RouterTest, WrongMethodIs405) {
  EXPECT_EQ(MatchStatus(Method::kGet, "/v2/models/m/infer"), 405u);
  EXPECT_EQ(MatchStatus(Method::kPost, "/v2/health/live"), 405u);
  EXPECT_EQ(MatchStatus(Method::kOther, "/v2"), 405u);
}

TEST(RouterTest, UnknownPathsAre404) {
  EXPECT_EQ(MatchStatus(Method::kGet, "/"), 404u);
  EXPECT_EQ(MatchStatus(Method::kGet, "/v1/models/m"), 404u);
  EXPECT_EQ(MatchStatus(Method::kGet, "/v2/health"), 404u);
  EXPECT_EQ(MatchStatus(Method::kGet, "/v2/models//ready"), 404u);
  EXPECT_EQ(MatchStatus(Method::kGet, "/v2/models/m/unknown"), 404u);
  EXPECT_EQ(MatchStatus(Method::kGet, "/v2/a/b/c/d/e/f/g/h/i/j"), 404u);
}

TEST(RouterTest, BadVersionIs400) {
  EXPECT_EQ(MatchStatus(Method::kGet, "/v2/models/m/versions/x"), 400u);
  EXPECT_EQ(MatchStatus(Method::kGet, "/v2/models/m/versions/-1"), 400u);
}

TEST(RouterTest, StatisticsRepositoryAndMetricsRoutes) {
  EXPECT_EQ(Match(Method::kGet, "/v2/models/m/stats").endpoint, Endpoint::kModelStats);
  EXPECT_EQ(Match(Method::kGet, "/v2/models/stats").endpoint, Endpoint::kModelStats);
  Route load = Match(Method::kPost, "/v2/repository/models/my%20model/load");
  EXPECT_EQ(load.endpoint, Endpoint::kRepositoryLoad);
  EXPECT_EQ(load.model, "my model");
  EXPECT_EQ(Match(Method::kPost, "/v2/repository/models/m/unload").endpoint,
            Endpoint::kRepositoryUnload);
  EXPECT_EQ(Match(Method::kGet, "/metrics").endpoint, Endpoint::kMetrics);
}

TEST(RouterTest, TraceSettingRoutesTakeGetAndPost) {
  EXPECT_EQ(Match(Method::kGet, "/v2/trace/setting").endpoint, Endpoint::kTraceSettingGet);
  EXPECT_EQ(Match(Method::kPost, "/v2/trace/setting").endpoint, Endpoint::kTraceSettingPost);
  Route model = Match(Method::kPost, "/v2/models/my%20model/trace/setting");
  EXPECT_EQ(model.endpoint, Endpoint::kTraceSettingPost);
  EXPECT_EQ(model.model, "my model");
  EXPECT_EQ(Match(Method::kGet, "/v2/models/m/trace/setting").endpoint,
            Endpoint::kTraceSettingGet);
  EXPECT_EQ(MatchStatus(Method::kOther, "/v2/trace/setting"), 405u);
  EXPECT_EQ(MatchStatus(Method::kGet, "/v2/trace"), 404u);
  EXPECT_EQ(MatchStatus(Method::kGet, "/v2/models/m/versions/1/trace/setting"), 404u);
}

TEST(RouterTest, LoggingAnswersGetAndPostOnOnePath) {
  EXPECT_EQ(Match(Method::kGet, "/v2/logging").endpoint, Endpoint::kLogSettings);
  EXPECT_EQ(Match(Method::kPost, "/v2/logging").endpoint, Endpoint::kLogSettingsUpdate);
  EXPECT_EQ(Match(Method::kPost, "/v2/logging/").endpoint, Endpoint::kLogSettingsUpdate);
  EXPECT_EQ(MatchStatus(Method::kOther, "/v2/logging"), 405u);
  EXPECT_EQ(MatchStatus(Method::kGet, "/v2/logging/file"), 404u);
}

TEST(RouterTest, SystemSharedMemoryRoutes) {
  EXPECT_EQ(Match(Method::kGet, "/v2/systemsharedmemory/status").endpoint,
            Endpoint::kSharedMemoryStatus);
  Route status = Match(Method::kGet, "/v2/systemsharedmemory/region/in%201/status");
  EXPECT_EQ(status.endpoint, Endpoint::kSharedMemoryStatus);
  EXPECT_EQ(status.region, "in 1");
  Route reg = Match(Method::kPost, "/v2/systemsharedmemory/region/r/register");
  EXPECT_EQ(reg.endpoint, Endpoint::kSharedMemoryRegister);
  EXPECT_EQ(reg.region, "r");
  EXPECT_EQ(Match(Method::kPost, "/v2/systemsharedmemory/unregister").region, "");
  EXPECT_EQ(Match(Method::kPost, "/v2/systemsharedmemory/region/r/unregister").endpoint,
            Endpoint::kSharedMemoryUnregister);
  // Registering needs a region name; status is a GET.
  EXPECT_EQ(MatchStatus(Method::kPost, "/v2/systemsharedmemory/register"), 404u);
  EXPECT_EQ(MatchStatus(Method::kPost, "/v2/systemsharedmemory/status"), 405u);
}

TEST(RouterTest, CudaSharedMemoryIsMarkedUnsupported) {
  EXPECT_EQ(Match(Method::kGet, "/v2/cudasharedmemory/status").endpoint,
            Endpoint::kNotSupported);
}

}  // namespace
}  // namespace inferd::http

// The dashboard's page and files, built into the binary, and its routes.
#include "http/dashboard/dashboard_endpoint.h"

#include <gtest/gtest.h>

#include "http/dashboard/dashboard_files.h"
#include "http/endpoint_category.h"
#include "http/route_map.h"

namespace inferd::http {
namespace {

class NoHeaders final : public RequestHeaders {
 public:
  std::string_view Get(std::string_view) const override { return {}; }
};

Route MatchOn(const KServeRouteMap& map, Method method, std::string_view target,
              unsigned* status) {
  Route route;
  *status = map.Match(method, target, NoHeaders(), &route).http_status();
  return route;
}

TEST(DashboardEndpointTest, PageIsTheEmbeddedHtmlAndLoadsOnlyLocalFiles) {
  Route route;
  route.endpoint = Endpoint::kDashboardPage;
  const auto page = HandleDashboardEndpoint(nullptr, route, false);
  ASSERT_TRUE(page.ok()) << page.status().message();
  EXPECT_EQ(page->status, 200u);
  EXPECT_EQ(page->content_type, "text/html; charset=utf-8");
  EXPECT_NE(page->body.find("<title>inferd dashboard</title>"), std::string::npos);
  EXPECT_NE(page->body.find("/dashboard/uPlot.iife.min.js"), std::string::npos);
  EXPECT_EQ(page->body.find("http://"), std::string::npos);  // no CDN
  EXPECT_EQ(page->body.find("https://"), std::string::npos);
}

TEST(DashboardEndpointTest, FilesHaveTheirContentTypes) {
  Route route;
  route.endpoint = Endpoint::kDashboardFile;
  for (const auto& [name, type] :
       {std::pair<std::string, std::string_view>("dashboard.js", "text/javascript; charset=utf-8"),
        {"uPlot.iife.min.js", "text/javascript; charset=utf-8"},
        {"dashboard.css", "text/css; charset=utf-8"},
        {"uPlot.min.css", "text/css; charset=utf-8"},
        {"uPlot.LICENSE.txt", "text/plain; charset=utf-8"}}) {
    route.file = name;
    const auto file = HandleDashboardEndpoint(nullptr, route, false);
    ASSERT_TRUE(file.ok()) << name;
    EXPECT_EQ(file->content_type, type) << name;
    EXPECT_FALSE(file->body.empty()) << name;
    EXPECT_EQ(file->body, FindDashboardFile(name)->body) << name;
  }
  route.file = "missing.js";
  const auto missing = HandleDashboardEndpoint(nullptr, route, false);
  EXPECT_EQ(missing.status().code(), Status::Code::kNotFound);
  EXPECT_NE(missing.status().message().find("'missing.js'"), std::string::npos);
}

TEST(DashboardEndpointTest, RoutesOnTheHttpPortUnlessTurnedOff) {
  const KServeRouteMap on;
  const KServeRouteMap off(/*openai=*/true, /*dashboard=*/false);
  unsigned status = 0;
  EXPECT_EQ(MatchOn(on, Method::kGet, "/dashboard", &status).endpoint, Endpoint::kDashboardPage);
  EXPECT_EQ(status, 200u);
  EXPECT_EQ(MatchOn(on, Method::kGet, "/dashboard/?x=1", &status).endpoint,
            Endpoint::kDashboardPage);
  EXPECT_EQ(MatchOn(on, Method::kGet, "/dashboard/data", &status).endpoint,
            Endpoint::kDashboardData);
  const Route file = MatchOn(on, Method::kGet, "/dashboard/dashboard.js", &status);
  EXPECT_EQ(file.endpoint, Endpoint::kDashboardFile);
  EXPECT_EQ(file.file, "dashboard.js");
  MatchOn(on, Method::kPost, "/dashboard/data", &status);
  EXPECT_EQ(status, 405u);
  MatchOn(on, Method::kGet, "/dashboard/a/b", &status);
  EXPECT_EQ(status, 404u);
  MatchOn(on, Method::kGet, "/dashboards", &status);
  EXPECT_EQ(status, 404u);
  for (const char* target : {"/dashboard", "/dashboard/data", "/dashboard/dashboard.js"}) {
    MatchOn(off, Method::kGet, target, &status);
    EXPECT_EQ(status, 404u) << target;
  }
  MatchOn(off, Method::kGet, "/v2/health/live", &status);
  EXPECT_EQ(status, 200u);
}

TEST(DashboardEndpointTest, BelongsToTheStatisticsGroup) {
  for (Endpoint e : {Endpoint::kDashboardPage, Endpoint::kDashboardData,
                     Endpoint::kDashboardFile}) {
    EXPECT_EQ(EndpointCategory(e), ApiCategory::kStatistics);
    EXPECT_TRUE(IsDashboardEndpoint(e));
  }
  EXPECT_FALSE(IsDashboardEndpoint(Endpoint::kModelStats));
}

}  // namespace
}  // namespace inferd::http

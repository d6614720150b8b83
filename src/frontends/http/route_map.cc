// The HTTP and metrics ports' route maps.
#include "http/route_map.h"

namespace inferd::http {

HttpError KServeRouteMap::Match(Method method, std::string_view target,
                                const RequestHeaders& /*headers*/, Route* route) const {
  if (openai_ && target.starts_with("/v1/")) return MatchOpenAiRoute(method, target, route);
  // No KServe v2 path starts so.
  if (dashboard_ && target.starts_with("/dashboard")) {
    return MatchDashboardRoute(method, target, route);
  }
  if (HttpError e = MatchRoute(method, target, route); !e.ok()) return e;
  // /metrics has a port of its own.
  if (route->endpoint == Endpoint::kMetrics) return Status::NotFound("Not Found");
  return Status::Ok();
}

HttpError MetricsRouteMap::Match(Method method, std::string_view target,
                                 const RequestHeaders& /*headers*/, Route* route) const {
  if (HttpError e = MatchRoute(method, target, route); !e.ok()) return e;
  if (route->endpoint != Endpoint::kMetrics) return Status::NotFound("Not Found");
  return Status::Ok();
}

}  // namespace inferd::http

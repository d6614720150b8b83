// The dashboard's endpoints (docs/dashboard.md): GET /dashboard (the page),
// /dashboard/{file} (its scripts and styles, built into the binary) and
// /dashboard/data (the JSON the page polls, dashboard_data.h). Thread-safe.
#ifndef INFERD_FRONTENDS_HTTP_DASHBOARD_DASHBOARD_ENDPOINT_H_
#define INFERD_FRONTENDS_HTTP_DASHBOARD_DASHBOARD_ENDPOINT_H_

#include "http/endpoints.h"
#include "http/router.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::http {

// Answers a dashboard route. `repository_api`: load and unload are served
// (the page then shows its buttons). NOT_FOUND for a file the page lacks.
StatusOr<EndpointResponse> HandleDashboardEndpoint(INFERD_Server* server, const Route& route,
                                                   bool repository_api);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_DASHBOARD_DASHBOARD_ENDPOINT_H_

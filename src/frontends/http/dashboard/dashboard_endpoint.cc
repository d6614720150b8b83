#include "http/dashboard/dashboard_endpoint.h"

#include <string>

#include "http/dashboard/dashboard_data.h"
#include "http/dashboard/dashboard_files.h"

namespace inferd::http {
namespace {

StatusOr<EndpointResponse> File(std::string_view name) {
  const EmbeddedFile* file = FindDashboardFile(name);
  if (file == nullptr) {
    return Status::NotFound("the dashboard has no file '" + std::string(name) + "'");
  }
  return EndpointResponse{200, std::string(file->body), DashboardContentType(file->name)};
}

}  // namespace

StatusOr<EndpointResponse> HandleDashboardEndpoint(INFERD_Server* server, const Route& route,
                                                   bool repository_api) {
  switch (route.endpoint) {
    case Endpoint::kDashboardPage:
      return File("index.html");
    case Endpoint::kDashboardFile:
      return File(route.file);
    case Endpoint::kDashboardData: {
      ASSIGN_OR_RETURN(std::string json, CollectDashboardData(server, repository_api));
      return EndpointResponse{200, std::move(json), kJsonContentType};
    }
    default:
      return Status::Internal("not a dashboard endpoint");
  }
}

}  // namespace inferd::http

// The KServe v2 endpoints other than infer: health, server and model metadata,
// model readiness and configuration, the repository index and the log
// settings (logging extension). Each is one
// synchronous server API call whose answer becomes an HTTP status and body.
// Thread-safe (the server API is).
#ifndef INFERD_FRONTENDS_HTTP_ENDPOINTS_H_
#define INFERD_FRONTENDS_HTTP_ENDPOINTS_H_

#include <string>
#include <string_view>

#include "http/response_head.h"
#include "http/router.h"
#include "inferd/server.h"

namespace inferd::http {

struct EndpointResponse {
  unsigned status = 200;
  std::string body;  // JSON, or empty (health and readiness answers)
  std::string_view content_type = kJsonContentType;
};

// Answers `route`, which is any endpoint but kModelInfer. `body` is the request
// body (the optional {"ready": bool} of the repository index, the settings a
// POST /v2/logging changes). Errors come back
// as their HTTP status with an {"error": "..."} body.
EndpointResponse HandleEndpoint(INFERD_Server* server, const Route& route, std::string_view body);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_ENDPOINTS_H_

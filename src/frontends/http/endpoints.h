// The KServe v2 endpoints other than infer: health, server and model metadata,
// model readiness and configuration, the repository index, statistics,
// metrics, and the log and trace settings. Each is one synchronous server API
// call whose answer becomes a status line and body; a failure is returned as
// a Status, which the session answers. Thread-safe (the server API is).
#ifndef INFERD_FRONTENDS_HTTP_ENDPOINTS_H_
#define INFERD_FRONTENDS_HTTP_ENDPOINTS_H_

#include <string>
#include <string_view>

#include "http/response_head.h"
#include "inferd/base/status.h"
#include "http/router.h"
#include "inferd/server.h"

namespace inferd::http {

// A successful answer. Health and readiness answer "no" with 400 and no body,
// as Triton does; that is an answer, not an error.
struct EndpointResponse {
  unsigned status = 200;
  std::string body;  // JSON, or empty (health and readiness answers)
  std::string_view content_type = kJsonContentType;
};

// Answers `route`, which is any endpoint but kModelInfer, the generate ones
// and the shared memory ones. `body` is the request body (the optional {"ready": bool} of the
// repository index, the settings a POST /v2/logging changes). A failure is
// the server's error, or INVALID_ARG for a malformed body.
StatusOr<EndpointResponse> HandleEndpoint(INFERD_Server* server, const Route& route,
                                          std::string_view body);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_ENDPOINTS_H_

// API keys on the HTTP port, the metrics port and the OpenAI routes
// (--auth-file, common/auth/access_control.h): the scope each endpoint needs
// (its restriction category's, endpoint_category.h) and the HTTP answer to a
// refusal. Pure; thread-safe.
#ifndef INFERD_FRONTENDS_HTTP_ACCESS_CHECK_H_
#define INFERD_FRONTENDS_HTTP_ACCESS_CHECK_H_

#include "common/auth/access_control.h"
#include "http/http_errors.h"
#include "http/route_map.h"
#include "http/router.h"

namespace inferd::http {

// The check of a request for `route` with `headers` (Authorization: Bearer).
// Health endpoints pass without a key. Infer and generate requests are
// checked against the key's models; an OpenAI completion's model is in its
// body, so its check ends with AccessControl::FinishModelCheck.
auth::AccessDecision CheckAccess(const auth::AccessControl& access, const Route& route,
                                 const RequestHeaders& headers);

// A refused decision's answer: 401 with `WWW-Authenticate: Bearer`, 403, or
// 429 with Retry-After.
HttpError AccessError(const auth::AccessDecision& decision);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_ACCESS_CHECK_H_

// Which of Triton's restriction categories (--http-restricted-api) each HTTP
// endpoint belongs to: the one table of it. Pure.
#ifndef INFERD_FRONTENDS_HTTP_ENDPOINT_CATEGORY_H_
#define INFERD_FRONTENDS_HTTP_ENDPOINT_CATEGORY_H_

#include "common/api_restrictions.h"
#include "http/http_errors.h"
#include "http/route_map.h"
#include "http/router.h"

namespace inferd::http {

// As Triton's handlers: health and model readiness are "health", server and
// model metadata "metadata", infer and generate "inference", the repository
// index, load and unload "model-repository", and so on; /metrics is never
// restricted.
ApiCategory EndpointCategory(Endpoint endpoint);

// OK when `endpoint` is open or `headers` carry its restriction's header with
// its value; else 403 with Triton's message naming the header. Called only
// when some category is restricted.
HttpError CheckRestriction(const ApiRestrictions& restrictions, Endpoint endpoint,
                           const RequestHeaders& headers);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_ENDPOINT_CATEGORY_H_

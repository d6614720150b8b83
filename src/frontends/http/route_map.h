// What an HTTP server's requests mean. A RouteMap turns a request's method,
// target and headers into a KServe v2 Route, which the session then serves
// the same way whichever map chose it: so the SageMaker and Vertex AI
// frontends (frontends/cloud/) compose their own paths over the KServe v2
// sessions, parsing and responses instead of copying them. A map also says
// how its binary infer bodies announce their JSON length. Implementations
// are immutable after construction and thread-safe.
#ifndef INFERD_FRONTENDS_HTTP_ROUTE_MAP_H_
#define INFERD_FRONTENDS_HTTP_ROUTE_MAP_H_

#include <string_view>

#include "http/http_errors.h"
#include "http/router.h"

namespace inferd::http {

// Read access to a request's header fields.
class RequestHeaders {
 public:
  virtual ~RequestHeaders() = default;
  // The value of header `name` (case-insensitive); empty when absent.
  virtual std::string_view Get(std::string_view name) const = 0;
};

class RouteMap {
 public:
  RouteMap() = default;
  virtual ~RouteMap() = default;
  RouteMap(const RouteMap&) = delete;
  RouteMap& operator=(const RouteMap&) = delete;

  // The route for a request; an error (with its HTTP status) when the map
  // has none for it.
  virtual HttpError Match(Method method, std::string_view target, const RequestHeaders& headers,
                          Route* route) const = 0;

  // The Content-Type prefix, ending in "json-header-size=", with which a
  // binary infer body gives its JSON length and a binary response says it
  // (the cloud platforms' vendor MIME types); empty for KServe v2, which uses
  // the Inference-Header-Content-Length header alone.
  virtual std::string_view binary_content_type() const { return {}; }

  // Whether responses may be compressed as Accept-Encoding asks (Triton's
  // cloud endpoints always answer uncompressed).
  virtual bool compress_responses() const { return true; }

  // Whether the OpenAI API's /v1 paths are this map's (then every answer
  // under /v1/, errors included, takes OpenAI's shape).
  virtual bool serves_openai() const { return false; }
};

// The KServe v2 paths of the HTTP port (MatchRoute), GET /metrics excepted,
// the OpenAI API's /v1 paths unless `openai` is false (--allow-openai), and
// the dashboard's unless `dashboard` is false (--allow-dashboard).
class KServeRouteMap final : public RouteMap {
 public:
  explicit KServeRouteMap(bool openai = true, bool dashboard = true)
      : openai_(openai), dashboard_(dashboard) {}
  HttpError Match(Method method, std::string_view target, const RequestHeaders& headers,
                  Route* route) const override;
  bool serves_openai() const override { return openai_; }

 private:
  bool openai_;
  bool dashboard_;
};

// The metrics port: GET /metrics and nothing else.
class MetricsRouteMap final : public RouteMap {
 public:
  HttpError Match(Method method, std::string_view target, const RequestHeaders& headers,
                  Route* route) const override;
};

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_ROUTE_MAP_H_

// The KServe v2 / Open Inference Protocol HTTP/REST frontend, as Triton serves
// it: listens on one address and port and answers every connection with an
// HttpSession. Asynchronous: one io_context run by a few threads, a strand per
// connection, no thread per connection or request. Talks to the server only
// through the in-process API (inferd/server.h). A Frontend: Start, port and
// Stop are called from one controlling thread; not thread-safe otherwise.
#ifndef INFERD_FRONTENDS_HTTP_HTTP_SERVER_H_
#define INFERD_FRONTENDS_HTTP_HTTP_SERVER_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "common/api_restrictions.h"
#include "common/auth/access_control.h"
#include "common/frontend.h"
#include "common/shared_memory_registry.h"
#include "http/http_limits.h"
#include "http/route_map.h"
#include "http/tls_options.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::http {

namespace openai {
class OpenAiMetrics;
}  // namespace openai

struct HttpOptions {
  std::string address = "0.0.0.0";
  uint16_t port = 8000;
  // SO_REUSEPORT on the listening socket (--reuse-http-port): several servers
  // that all set it share the port, the kernel spreading connections.
  bool reuse_port = false;
  // Headers of infer and generate requests whose name matches become string
  // parameters of the request (--http-header-forward-pattern, header_forward.h);
  // empty: none.
  std::string header_forward_pattern;
  // Endpoint categories that need a header (--http-restricted-api); empty:
  // every endpoint is open.
  ApiRestrictions restrictions;
  // API keys (--auth-file, common/auth/access_control.h); null: none needed.
  // Not owned; must outlive the server.
  const auth::AccessControl* access = nullptr;
  // HTTPS (--http-use-ssl and friends); off by default.
  HttpTlsOptions tls;
  int thread_count = 0;  // 0 = hardware concurrency, at least 2
  HttpLimits limits;  // sizes, connections, timeouts
  // Serve only GET /metrics (Prometheus text): the --metrics-port server.
  bool metrics_only = false;
  // What the paths mean; null: the KServe v2 paths (or /metrics alone when
  // metrics_only). The cloud frontends pass their own.
  std::shared_ptr<const RouteMap> routes;
  // The system shared memory regions (shared with the gRPC frontend); null
  // turns the extension off. Not owned; must outlive the server.
  SharedMemoryRegistry* shared_memory = nullptr;
  // The OpenAI API's /v1 routes (--allow-openai); on by default.
  bool openai_api = true;
  // How long one OpenAI API request may take (--openai-timeout-secs); 0: no limit.
  std::chrono::seconds openai_timeout{0};
  // Where the OpenAI API's metrics are recorded (the HTTP port) or read
  // (the metrics port); null: none. Not owned; must outlive the server.
  openai::OpenAiMetrics* openai_metrics = nullptr;
  // The dashboard's page and data, /dashboard (--allow-dashboard); on by default.
  bool dashboard = true;
  // Whether load and unload are served (--model-control-mode=explicit): the
  // dashboard then shows its load and unload buttons.
  bool repository_api = false;
};

class HttpServer final : public Frontend {
 public:
  // Does not take ownership of server; it must outlive this object.
  HttpServer(INFERD_Server* server, HttpOptions options);
  ~HttpServer() override;  // stops

  // INVALID_ARG for an address that does not parse, a header forward
  // pattern that is not a regular expression or TLS files that cannot be
  // used (naming the flag and the file), UNAVAILABLE when the socket
  // cannot be bound or listened on (port in use, ...).
  Status Start() override;

  uint16_t port() const override;

  // Stops accepting connections, lets in-flight requests finish their
  // responses, closes idle connections, joins threads. Connections still busy
  // after a grace period are closed; requests still queued in the server are
  // waited for, since their callbacks reach into this object.
  void Stop() override;
  // Writes 503 to every connection whose request waits for the server.
  void AnswerInFlightAtExit(const std::string& why) override;
  // Over HTTPS: the certificate files are re-read soon (they are anyway
  // when they change); new connections use what they hold.
  void ReloadFiles() override;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_HTTP_SERVER_H_

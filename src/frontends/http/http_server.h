// The KServe v2 / Open Inference Protocol HTTP/REST frontend, as Triton serves
// it: listens on one address and port and answers every connection with an
// HttpSession. Asynchronous: one io_context run by a few threads, a strand per
// connection, no thread per connection or request. Talks to the server only
// through the in-process API (inferd/server.h).
//
// Start, port and Stop are called from one controlling thread; not thread-safe
// otherwise.
#ifndef INFERD_FRONTENDS_HTTP_HTTP_SERVER_H_
#define INFERD_FRONTENDS_HTTP_HTTP_SERVER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "common/shared_memory_registry.h"
#include "inferd/server.h"

namespace inferd::http {

struct HttpOptions {
  std::string address = "0.0.0.0";
  uint16_t port = 8000;
  int thread_count = 0;  // 0 = hardware concurrency, at least 2
  size_t max_body_bytes = 64 << 20;  // larger request bodies get 413
  // Serve only GET /metrics (Prometheus text): the --metrics-port server.
  bool metrics_only = false;
  // The system shared memory regions (shared with the gRPC frontend); null
  // turns the extension off. Not owned; must outlive the server.
  SharedMemoryRegistry* shared_memory = nullptr;
};

class HttpServer {
 public:
  // Does not take ownership of server; it must outlive this object.
  HttpServer(INFERD_Server* server, HttpOptions options);
  ~HttpServer();  // stops
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts serving; returns "" or an error message (bad address,
  // port in use, ...). Port 0 binds an ephemeral port. Call once.
  std::string Start();

  // The bound port after Start.
  uint16_t port() const;

  // Stops accepting connections, lets in-flight requests finish their
  // responses, closes idle connections, joins threads. Connections still busy
  // after a grace period are closed; requests still queued in the server are
  // waited for, since their callbacks reach into this object. Idempotent.
  void Stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_HTTP_SERVER_H_

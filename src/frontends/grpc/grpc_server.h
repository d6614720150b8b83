// The KServe v2 gRPC frontend, as Triton serves it: inference.GRPCInferenceService
// on one address and port, optionally over TLS or mutual TLS, with Triton's
// keepalive settings and optional compression of infer responses. Asynchronous
// on gRPC's completion-queue API, one queue polled by one thread
// (queue_call.h): no thread per call or stream. Talks to the server
// only through the in-process API (inferd/server.h). A Frontend: Start, port
// and Stop are called from one controlling thread; not thread-safe otherwise.
#ifndef INFERD_FRONTENDS_GRPC_GRPC_SERVER_H_
#define INFERD_FRONTENDS_GRPC_GRPC_SERVER_H_

#include <climits>
#include <cstdint>
#include <memory>
#include <string>

#include "common/api_restrictions.h"
#include "common/auth/access_control.h"
#include "common/connection_frontend.h"
#include "common/shared_memory_registry.h"
#include "inferd/base/status.h"
#include "inferd/server.h"

namespace inferd::grpc_frontend {

// How strongly infer responses are compressed (--grpc-infer-response-compression-level).
enum class CompressionLevel { kNone, kLow, kMedium, kHigh };

// The frontend's settings; the defaults are Triton's.
struct GrpcOptions {
  std::string address = "0.0.0.0";
  uint16_t port = 8001;  // 0 binds an ephemeral port
  // False: the server binds nothing (address and port are ignored) and serves
  // only the connections handed to ServeConnection, accepted by the binary's
  // lazy listener (src/main/lazy_grpc_frontend.h). Plaintext only.
  bool listen = true;
  // SO_REUSEPORT on the listening socket (--reuse-grpc-port): several servers
  // that all set it share the port. Off unless set, though gRPC turns it on
  // by default on Linux.
  bool reuse_port = false;
  // Metadata of ModelInfer and ModelStreamInfer calls whose key matches
  // becomes string parameters of the requests (--grpc-header-forward-pattern,
  // common/header_forward.h); empty: none.
  std::string header_forward_pattern;
  // RPC categories that need a metadata key (--grpc-restricted-protocol,
  // keys already prefixed triton-grpc-protocol-); empty: every RPC is open.
  ApiRestrictions restrictions;
  // API keys (--auth-file, common/auth/access_control.h); null: none needed.
  // Not owned; must outlive the server.
  const auth::AccessControl* access = nullptr;
  // TLS: the server's certificate chain and key (PEM files); mutual TLS also
  // requires clients to present a certificate signed by root_cert.
  bool use_ssl = false;
  bool use_mutual_ssl = false;  // implies use_ssl
  std::string server_cert;
  std::string server_key;
  std::string root_cert;
  CompressionLevel infer_response_compression = CompressionLevel::kNone;
  // Keepalive (gRPC core channel arguments), in milliseconds where timed.
  int keepalive_time_ms = 7200000;
  int keepalive_timeout_ms = 20000;
  bool keepalive_permit_without_calls = false;
  int http2_max_pings_without_data = 2;
  int http2_min_recv_ping_interval_without_data_ms = 300000;
  int http2_max_ping_strikes = 2;
  // Connection age (--grpc-max-connection-age, -grace), in milliseconds as
  // Triton's flags: past max_connection_age_ms the server sends GOAWAY, and
  // closes the connection max_connection_age_grace_ms later if calls still
  // run. 0 leaves gRPC's default (no limit) in place, as Triton does.
  int max_connection_age_ms = 0;
  int max_connection_age_grace_ms = 0;
  // Limits (docs/limits.md). The largest request message accepted
  // (--grpc-max-input-size; larger ones fail RESOURCE_EXHAUSTED): Triton's
  // 2 GiB - 1 by default.
  int max_input_size = INT_MAX;
  // Streams (calls) one connection may have open at once
  // (--grpc-max-concurrent-streams, HTTP/2 SETTINGS); 0: gRPC's default, no limit.
  int max_concurrent_streams = 0;
  // Bytes gRPC's buffers may take in all (--grpc-memory-quota, a gRPC
  // ResourceQuota): past it gRPC stops reading from clients until memory is
  // freed. 0: no quota.
  int64_t memory_quota_bytes = 0;
  // Completion queues, each polled by a thread of its own (--grpc-thread-count).
  // gRPC 1.51's pollers share one epoll set, so more than one hands calls'
  // events between threads: more throughput at saturation on many cores,
  // more CPU per call below it (docs/grpc.md).
  int thread_count = 1;
  // The system shared memory regions (shared with the HTTP frontend); null
  // turns the extension off. Not owned; must outlive the server.
  SharedMemoryRegistry* shared_memory = nullptr;
};

class GrpcServer final : public ConnectionFrontend {
 public:
  // Does not take ownership of server; it must outlive this object.
  GrpcServer(INFERD_Server* server, GrpcOptions options);
  ~GrpcServer() override;  // stops

  // INVALID_ARG for a certificate or key that is missing or unreadable, or a
  // header forward pattern that is not a regular expression; UNAVAILABLE
  // when the address cannot be listened on.
  Status Start() override;

  uint16_t port() const override;  // 0 when options.listen is false

  // Serves `fd` on this server's channel settings (keepalive, limits,
  // connection age: gRPC applies its server channel arguments to it).
  void ServeConnection(int fd) override;

  // Stops accepting connections and calls (GOAWAY) while the calls in
  // progress go on until `bound`; open streams end UNAVAILABLE once their
  // requests in flight are answered.
  void BeginDrain(std::chrono::seconds bound) override;

  // Stops accepting calls, lets calls in progress finish for a grace period,
  // then cancels the rest (a cancelled call cancels its queued requests) and
  // waits until every call is done, since the server's callbacks reach into
  // this object.
  void Stop() override;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace inferd::grpc_frontend

#endif  // INFERD_FRONTENDS_GRPC_GRPC_SERVER_H_

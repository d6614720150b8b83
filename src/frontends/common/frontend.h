// A protocol frontend as the binary runs it: bind and serve, say which port,
// stop. HttpServer and GrpcServer implement it, so main starts and stops
// every frontend alike, the gRPC one from its loadable module included. Only
// starting and stopping go through this interface, never a request.
//
// Start, port and Stop are called from one controlling thread; an
// implementation need not be thread-safe otherwise.
#ifndef INFERD_FRONTENDS_COMMON_FRONTEND_H_
#define INFERD_FRONTENDS_COMMON_FRONTEND_H_

#include <chrono>
#include <cstdint>
#include <string>

#include "inferd/base/status.h"

namespace inferd {

class Frontend {
 public:
  Frontend() = default;
  virtual ~Frontend() = default;  // an implementation stops first
  Frontend(const Frontend&) = delete;
  Frontend& operator=(const Frontend&) = delete;

  // Binds and starts serving; port 0 binds an ephemeral port. On error
  // (a bad address, the port in use, an unreadable certificate, ...) nothing
  // serves and the message says what went wrong. Call once.
  virtual Status Start() = 0;

  // The bound port after a successful Start.
  virtual uint16_t port() const = 0;

  // Stops serving and returns once no callback of the server can reach the
  // frontend any more (requests in flight are answered or cancelled).
  // Idempotent; a frontend that never started stops at once.
  virtual void Stop() = 0;

  // The server is about to refuse new work (the exit's drain begins; Stop
  // follows within `bound`): where the protocol lets a client or a proxy
  // take new work elsewhere without an error, stop taking it here — close the
  // listener, tell open connections to move (gRPC: GOAWAY) — while the calls
  // in flight go on and are answered. From the controlling thread, before
  // Stop. The default does nothing: HTTP answers what arrives with 503, which
  // a proxy retries.
  virtual void BeginDrain(std::chrono::seconds bound) { (void)bound; }

  // The exit timeout ran out with requests still waiting for the server (a
  // backend execution that does not end): answers each of them now with an
  // error naming `why` where the protocol can (HTTP: 503), closes the
  // connections, and returns once those answers are written or a short bound
  // passed, for the process to exit right after. Any thread, also while Stop
  // runs. The default does nothing: the connection closing as the process
  // exits is the error the client sees (gRPC: UNAVAILABLE).
  virtual void AnswerInFlightAtExit(const std::string& why) { (void)why; }

  // SIGHUP: re-read the files the frontend serves from (TLS certificates)
  // soon, changed or not; connections stay open. Any thread. The default
  // has none.
  virtual void ReloadFiles() {}
};

}  // namespace inferd

#endif  // INFERD_FRONTENDS_COMMON_FRONTEND_H_

// What one HTTP connection may take of the server: request sizes, the number
// of connections, and how long each phase of a request may last
// (docs/limits.md). A slow or silent client is closed when its phase runs out, so it
// holds neither an io thread (none ever blocks) nor memory without bound.
#ifndef INFERD_FRONTENDS_HTTP_HTTP_LIMITS_H_
#define INFERD_FRONTENDS_HTTP_HTTP_LIMITS_H_

#include <chrono>
#include <cstddef>

namespace inferd::http {

struct HttpLimits {
  // --http-max-input-size (Triton's flag and default): larger request bodies,
  // before or after Content-Encoding is undone, get 413.
  size_t max_body_bytes = 64 << 20;
  // --http-max-header-size: a request line and headers larger than this get
  // 431 (Request Header Fields Too Large).
  size_t max_header_bytes = 16 << 10;
  // --http-max-connections: connections past this many are answered 503 and
  // closed at once; 0: no limit.
  size_t max_connections = 1024;
  // --http-idle-timeout-secs: a connection waiting for a request, or whose
  // request head has not all arrived (slowloris), is closed after this long.
  std::chrono::seconds idle_timeout{300};
  // --http-body-timeout-secs: how long a request's body may take to arrive.
  std::chrono::seconds body_timeout{300};
  // --http-write-timeout-secs: how long writing one response (or one event
  // of a stream) may take; a client that does not read is closed then.
  std::chrono::seconds write_timeout{300};
  // A zero timeout: none.
};

// The phases of a connection that a timeout bounds.
enum class TimedPhase { kHead, kBody, kWrite };

// The timeout of `phase` under `limits`.
inline std::chrono::seconds TimeoutOf(const HttpLimits& limits, TimedPhase phase) {
  switch (phase) {
    case TimedPhase::kHead:
      return limits.idle_timeout;
    case TimedPhase::kBody:
      return limits.body_timeout;
    case TimedPhase::kWrite:
      return limits.write_timeout;
  }
  return std::chrono::seconds(0);
}

// The flag that sets it, for messages.
inline const char* TimeoutFlag(TimedPhase phase) {
  switch (phase) {
    case TimedPhase::kHead:
      return "--http-idle-timeout-secs";
    case TimedPhase::kBody:
      return "--http-body-timeout-secs";
    case TimedPhase::kWrite:
      return "--http-write-timeout-secs";
  }
  return "";
}

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_HTTP_LIMITS_H_

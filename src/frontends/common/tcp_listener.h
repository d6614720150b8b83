// A listening TCP socket opened by hand, for a frontend whose server library
// is loaded only once a client connects (src/main/lazy_grpc_frontend.h).
// Binds as gRPC's own listener does: SO_REUSEADDR, no SO_REUSEPORT, and a
// wildcard address ("0.0.0.0" or "::") listens dual-stack on IPv6 and IPv4
// where the host has IPv6, on IPv4 alone where it does not.
#ifndef INFERD_FRONTENDS_COMMON_TCP_LISTENER_H_
#define INFERD_FRONTENDS_COMMON_TCP_LISTENER_H_

#include <cstdint>
#include <string>

#include "inferd/base/status.h"

namespace inferd {

// Whether `host` is an IPv4 or IPv6 address literal (IPv6 in brackets or
// not), not a name to resolve.
bool IsNumericHost(const std::string& host);

struct TcpListener {
  int fd = -1;  // non-blocking, close-on-exec; the caller closes it
  uint16_t port = 0;  // the bound port (the ephemeral one for port 0)
};

// Listens on `host` (IsNumericHost) and `port`. UNAVAILABLE naming host:port
// and why when it cannot (port in use, address not local, ...).
StatusOr<TcpListener> ListenTcp(const std::string& host, uint16_t port);

}  // namespace inferd

#endif  // INFERD_FRONTENDS_COMMON_TCP_LISTENER_H_

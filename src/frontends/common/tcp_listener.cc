// socket, bind, listen.
#include "common/tcp_listener.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace inferd {
namespace {

std::string Unbracketed(const std::string& host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    return host.substr(1, host.size() - 2);
  }
  return host;
}

// An address family and its sockaddr, large enough for either.
struct Endpoint {
  sockaddr_storage storage{};
  socklen_t length = 0;
};

Endpoint V4(const in_addr& address, uint16_t port) {
  Endpoint e;
  auto* sin = reinterpret_cast<sockaddr_in*>(&e.storage);
  sin->sin_family = AF_INET;
  sin->sin_addr = address;
  sin->sin_port = htons(port);
  e.length = sizeof(sockaddr_in);
  return e;
}

Endpoint V6(const in6_addr& address, uint16_t port) {
  Endpoint e;
  auto* sin6 = reinterpret_cast<sockaddr_in6*>(&e.storage);
  sin6->sin6_family = AF_INET6;
  sin6->sin6_addr = address;
  sin6->sin6_port = htons(port);
  e.length = sizeof(sockaddr_in6);
  return e;
}

// Binds and listens on `endpoint`; -1 with errno set on failure.
int ListenOn(const Endpoint& endpoint, bool dual_stack) {
  const int family = endpoint.storage.ss_family;
  const int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const int one = 1;
  const int zero = 0;
  bool ok = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == 0;
  if (ok && family == AF_INET6) {
    ok = setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, dual_stack ? &zero : &one, sizeof(int)) == 0;
  }
  ok = ok && bind(fd, reinterpret_cast<const sockaddr*>(&endpoint.storage), endpoint.length) == 0 &&
       listen(fd, SOMAXCONN) == 0;
  if (!ok) {
    const int error = errno;
    close(fd);
    errno = error;
    return -1;
  }
  return fd;
}

uint16_t BoundPort(int fd) {
  sockaddr_storage bound{};
  socklen_t length = sizeof(bound);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length) != 0) return 0;
  if (bound.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_port);
  }
  return ntohs(reinterpret_cast<const sockaddr_in*>(&bound)->sin_port);
}

// A wildcard: [::] dual-stack, or 0.0.0.0 where the host has no IPv6 (a
// taken port is not retried on IPv4: it is taken).
int ListenOnWildcard(uint16_t port) {
  const int fd = ListenOn(V6(in6addr_any, port), /*dual_stack=*/true);
  if (fd >= 0 || errno == EADDRINUSE) return fd;
  in_addr any{};
  any.s_addr = htonl(INADDR_ANY);
  return ListenOn(V4(any, port), /*dual_stack=*/false);
}

}  // namespace

bool IsNumericHost(const std::string& host) {
  const std::string bare = Unbracketed(host);
  in_addr v4{};
  in6_addr v6{};
  return inet_pton(AF_INET, bare.c_str(), &v4) == 1 || inet_pton(AF_INET6, bare.c_str(), &v6) == 1;
}

StatusOr<TcpListener> ListenTcp(const std::string& host, uint16_t port) {
  const std::string bare = Unbracketed(host);
  const std::string where = host + ":" + std::to_string(port);
  in_addr v4{};
  in6_addr v6{};
  int fd = -1;
  if (inet_pton(AF_INET, bare.c_str(), &v4) == 1) {
    fd = v4.s_addr == htonl(INADDR_ANY) ? ListenOnWildcard(port)
                                        : ListenOn(V4(v4, port), /*dual_stack=*/false);
  } else if (inet_pton(AF_INET6, bare.c_str(), &v6) == 1) {
    fd = IN6_IS_ADDR_UNSPECIFIED(&v6) ? ListenOnWildcard(port)
                                      : ListenOn(V6(v6, port), /*dual_stack=*/false);
  } else {
    return Status::InvalidArg("cannot listen on " + where + ": not an IP address");
  }
  if (fd < 0) {
    return Status::Unavailable("cannot listen on " + where + ": " + std::strerror(errno));
  }
  return TcpListener{fd, BoundPort(fd)};
}

}  // namespace inferd

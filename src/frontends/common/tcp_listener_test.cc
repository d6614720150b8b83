// ListenTcp and IsNumericHost: real sockets on the loopback interface.
#include "common/tcp_listener.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace inferd {
namespace {

// Connects to 127.0.0.1:port; true if the connection is established.
bool Connects(uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  close(fd);
  return ok;
}

TEST(TcpListenerTest, TellsAddressLiteralsFromNames) {
  for (const char* host : {"0.0.0.0", "127.0.0.1", "::", "[::]", "::1", "[::1]", "fe80::1"}) {
    EXPECT_TRUE(IsNumericHost(host)) << host;
  }
  for (const char* host : {"localhost", "example.com", "", "[127.0.0.1", "1.2.3"}) {
    EXPECT_FALSE(IsNumericHost(host)) << host;
  }
}

TEST(TcpListenerTest, PortZeroBindsAnEphemeralPortThatAcceptsConnections) {
  StatusOr<TcpListener> listener = ListenTcp("127.0.0.1", 0);
  ASSERT_TRUE(listener.ok()) << listener.status().message();
  EXPECT_NE(listener->port, 0);
  EXPECT_TRUE(Connects(listener->port));
  close(listener->fd);
}

TEST(TcpListenerTest, WildcardAcceptsIpv4Clients) {
  StatusOr<TcpListener> listener = ListenTcp("0.0.0.0", 0);
  ASSERT_TRUE(listener.ok()) << listener.status().message();
  EXPECT_TRUE(Connects(listener->port));
  close(listener->fd);
}

TEST(TcpListenerTest, ATakenPortFailsNamingWhere) {
  StatusOr<TcpListener> first = ListenTcp("127.0.0.1", 0);
  ASSERT_TRUE(first.ok()) << first.status().message();
  const std::string where = "127.0.0.1:" + std::to_string(first->port);
  StatusOr<TcpListener> second = ListenTcp("127.0.0.1", first->port);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Status::Code::kUnavailable);
  EXPECT_NE(second.status().message().find(where), std::string::npos) << second.status().message();
  // The wildcard on the same port is taken too (dual-stack or not).
  EXPECT_FALSE(ListenTcp("0.0.0.0", first->port).ok());
  close(first->fd);
}

TEST(TcpListenerTest, ANameIsRefused) {
  StatusOr<TcpListener> listener = ListenTcp("localhost", 0);
  ASSERT_FALSE(listener.ok());
  EXPECT_EQ(listener.status().code(), Status::Code::kInvalidArg);
}

}  // namespace
}  // namespace inferd

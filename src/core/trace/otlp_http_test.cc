#include "core/trace/otlp_http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <thread>

namespace inferd {
namespace {

// A collector on a loopback port that answers each POST with 200 and a
// body, and closes a connection after `per_connection` answers.
class FakeCollector {
 public:
  explicit FakeCollector(int per_connection) : per_connection_(per_connection) {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    EXPECT_EQ(listen(listener_, 8), 0);
    socklen_t size = sizeof(address);
    getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeCollector() {
    shutdown(listener_, SHUT_RDWR);
    close(listener_);
    thread_.join();
  }
  uint16_t port() const { return port_; }
  // Read after the transport is done (the thread joins in the destructor).
  int connections = 0;
  int requests = 0;
  std::string content_type;

 private:
  void Serve() {
    for (;;) {
      const int fd = accept(listener_, nullptr, nullptr);
      if (fd < 0) return;
      ++connections;
      std::string in;
      char chunk[4096];
      for (int answered = 0; answered < per_connection_;) {
        const size_t head = in.find("\r\n\r\n");
        const size_t length_at = in.find("Content-Length: ");
        if (head != std::string::npos && length_at < head) {
          const size_t length = std::stoul(in.substr(length_at + 16));
          if (in.size() >= head + 4 + length) {
            const size_t type_at = in.find("Content-Type: ") + 14;
            content_type = in.substr(type_at, in.find("\r\n", type_at) - type_at);
            in.erase(0, head + 4 + length);
            ++requests;
            ++answered;
            const std::string answer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
            if (send(fd, answer.data(), answer.size(), MSG_NOSIGNAL) < 0) break;
            continue;
          }
        }
        const ssize_t got = recv(fd, chunk, sizeof(chunk), 0);
        if (got <= 0) break;
        in.append(chunk, static_cast<size_t>(got));
      }
      close(fd);
    }
  }

  const int per_connection_;
  int listener_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
};

TEST(OtlpHttpTransportTest, KeepsItsConnectionBetweenBatches) {
  FakeCollector collector(100);
  {
    OtlpHttpTransport transport(OtlpEndpoint{"127.0.0.1", collector.port(), "/v1/traces"}, 5000);
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(transport.Send("abc").ok()) << i;
  }
  EXPECT_EQ(collector.requests, 3);
  EXPECT_EQ(collector.connections, 1);
  EXPECT_EQ(collector.content_type, "application/x-protobuf");
}

TEST(OtlpHttpTransportTest, ReconnectsWhenTheCollectorClosedTheConnection) {
  FakeCollector collector(1);
  {
    OtlpHttpTransport transport(OtlpEndpoint{"127.0.0.1", collector.port(), "/v1/traces"}, 5000,
                                "application/json");
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(transport.Send("{}").ok()) << i;
  }
  EXPECT_EQ(collector.requests, 3);
  EXPECT_EQ(collector.connections, 3);
  EXPECT_EQ(collector.content_type, "application/json");
}

}  // namespace
}  // namespace inferd

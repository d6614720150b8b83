#include "core/trace/otlp_http.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>

namespace inferd {
namespace {

using SteadyTime = std::chrono::steady_clock::time_point;

// Waits until `fd` is ready for `events` or the deadline passes.
bool WaitReady(int fd, short events, SteadyTime deadline) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd poll_fd{fd, events, 0};
    const int ready = poll(&poll_fd, 1, static_cast<int>(left.count()));
    if (ready > 0) return true;
    if (ready < 0 && errno != EINTR) return false;
  }
}

Status Connect(const OtlpEndpoint& endpoint, SteadyTime deadline, int* out) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(endpoint.port);
  if (const int rc = getaddrinfo(endpoint.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return Status::Unavailable("cannot resolve '" + endpoint.host + "': " + gai_strerror(rc));
  }
  std::string error = "no address";
  for (addrinfo* address = found; address != nullptr; address = address->ai_next) {
    const int fd = socket(address->ai_family, address->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                          address->ai_protocol);
    if (fd < 0) continue;
    int rc = connect(fd, address->ai_addr, address->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS && WaitReady(fd, POLLOUT, deadline)) {
      socklen_t size = sizeof(rc);
      if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &rc, &size) != 0) rc = errno;
      errno = rc;
    }
    if (rc == 0) {
      // A kept connection's POST is two writes and a read: with Nagle's
      // algorithm the body would wait for the collector's delayed ack of the
      // head (40 ms a batch). The head is sent with MSG_MORE instead.
      const int on = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
      freeaddrinfo(found);
      *out = fd;
      return Status::Ok();
    }
    error = errno == EINPROGRESS ? "timed out" : std::strerror(errno);
    close(fd);
  }
  freeaddrinfo(found);
  return Status::Unavailable("cannot connect to " + endpoint.host + ":" + port + ": " + error);
}

// `more`: more data follows at once (the kernel holds a partial packet).
Status WriteAll(int fd, std::string_view data, SteadyTime deadline, bool more = false) {
  while (!data.empty()) {
    const ssize_t sent = send(fd, data.data(), data.size(), MSG_NOSIGNAL | (more ? MSG_MORE : 0));
    if (sent > 0) {
      data.remove_prefix(static_cast<size_t>(sent));
    } else if (sent < 0 && errno != EAGAIN && errno != EINTR) {
      return Status::Unavailable(std::string("sending spans failed: ") + std::strerror(errno));
    } else if (!WaitReady(fd, POLLOUT, deadline)) {
      return Status::Unavailable("sending spans timed out");
    }
  }
  return Status::Ok();
}

// Whether an answer with this head leaves the connection open for the next
// request, and its body's length. Without a length (HTTP/1.0, chunked) the
// body is not read and the connection is not kept.
bool KeptWithBody(std::string head, size_t* length) {
  for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const size_t field = head.find("\r\ncontent-length:");
  if (field == std::string::npos || head.rfind("http/1.1", 0) != 0 ||
      head.find("\r\nconnection: close") != std::string::npos) {
    return false;
  }
  size_t at = field + sizeof("\r\ncontent-length:") - 1;
  while (at < head.size() && head[at] == ' ') ++at;
  return std::from_chars(head.data() + at, head.data() + head.size(), *length).ec == std::errc();
}

// The answer's status code, once its head and its body (Content-Length)
// are read; `*keep` whether the connection can carry the next request.
StatusOr<int> ReadAnswer(int fd, SteadyTime deadline, bool* keep) {
  std::string answer;
  char chunk[512];
  size_t head_end = std::string::npos;
  size_t length = 0;
  while (head_end == std::string::npos || answer.size() < head_end + 4 + length) {
    if (!WaitReady(fd, POLLIN, deadline)) {
      return Status::Unavailable("the collector did not answer");
    }
    const ssize_t got = recv(fd, chunk, sizeof(chunk), 0);
    if (got == 0) return Status::Unavailable("the collector closed the connection");
    if (got < 0 && errno != EAGAIN && errno != EINTR) {
      return Status::Unavailable(std::string("reading the answer failed: ") + std::strerror(errno));
    }
    if (got > 0) answer.append(chunk, static_cast<size_t>(got));
    if (head_end != std::string::npos) continue;  // reading the body
    head_end = answer.find("\r\n\r\n");
    if (head_end != std::string::npos) {
      *keep = KeptWithBody(answer.substr(0, head_end), &length);
      if (!*keep) break;
    }
  }
  // "HTTP/1.1 200 OK"
  const size_t space = answer.find(' ');
  int code = 0;
  if (space == std::string::npos ||
      std::from_chars(answer.data() + space + 1, answer.data() + answer.size(), code).ec !=
          std::errc()) {
    return Status::Unavailable("the collector's answer is not HTTP");
  }
  return code;
}

}  // namespace

StatusOr<OtlpEndpoint> ParseOtlpUrl(std::string_view url) {
  const std::string quoted = "'" + std::string(url) + "'";
  std::string_view rest = url;
  if (rest.rfind("https://", 0) == 0) {
    return Status::InvalidArg("opentelemetry url " + quoted +
                              ": https is not supported; send to a local collector over http");
  }
  if (rest.rfind("http://", 0) == 0) rest.remove_prefix(7);
  OtlpEndpoint endpoint;
  const size_t slash = rest.find('/');
  if (slash != std::string_view::npos) {
    endpoint.path = std::string(rest.substr(slash));
    rest = rest.substr(0, slash);
  }
  const size_t colon = rest.rfind(':');
  if (colon != std::string_view::npos && rest.find(']', colon) == std::string_view::npos) {
    const std::string_view port = rest.substr(colon + 1);
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value == 0 ||
        value > 65535) {
      return Status::InvalidArg("opentelemetry url " + quoted + ": bad port '" +
                                std::string(port) + "'");
    }
    endpoint.port = static_cast<uint16_t>(value);
    rest = rest.substr(0, colon);
  }
  if (rest.size() >= 2 && rest.front() == '[' && rest.back() == ']') {
    rest = rest.substr(1, rest.size() - 2);
  }
  if (rest.empty()) return Status::InvalidArg("opentelemetry url " + quoted + " has no host");
  endpoint.host = std::string(rest);
  return endpoint;
}

OtlpHttpTransport::~OtlpHttpTransport() { Disconnect(); }

void OtlpHttpTransport::Disconnect() {
  if (connection_ >= 0) close(connection_);
  connection_ = -1;
}

Status OtlpHttpTransport::Send(std::string_view body) {
  const SteadyTime deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms_);
  const bool kept = connection_ >= 0;
  Status status = Post(body, deadline);
  // The collector may have closed a kept connection while it sat idle.
  if (!status.ok() && kept && connection_ < 0) status = Post(body, deadline);
  return status;
}

Status OtlpHttpTransport::Post(std::string_view body, SteadyTime deadline) {
  if (connection_ < 0) RETURN_IF_ERROR(Connect(endpoint_, deadline, &connection_));
  const std::string head = "POST " + endpoint_.path + " HTTP/1.1\r\nHost: " + endpoint_.host +
                           ":" + std::to_string(endpoint_.port) +
                           "\r\nContent-Type: " + content_type_ + "\r\nContent-Length: " +
                           std::to_string(body.size()) + "\r\n\r\n";
  bool keep = false;
  Status status = WriteAll(connection_, head, deadline, /*more=*/true);
  if (status.ok()) status = WriteAll(connection_, body, deadline);
  StatusOr<int> code = status;
  if (status.ok()) code = ReadAnswer(connection_, deadline, &keep);
  if (!code.ok() || !keep) Disconnect();
  if (!code.ok()) return code.status();
  if (*code < 200 || *code > 299) {
    return Status::Unavailable("the collector answered HTTP " + std::to_string(*code));
  }
  return Status::Ok();
}

}  // namespace inferd

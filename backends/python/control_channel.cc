#include "control_channel.h"

#include <errno.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

namespace inferd::python {

bool ControlChannel::Pair(ControlChannel* a, ControlChannel* b) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) return false;
  a->Reset(fds[0]);
  b->Reset(fds[1]);
  return true;
}

bool ControlChannel::SendTo(int fd, const ControlMessage& message) {
  if (fd < 0) return false;
  ssize_t n;
  do {
    n = send(fd, &message, sizeof message, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof message);
}

bool ControlChannel::Receive(ControlMessage* message) const {
  if (fd_ < 0) return false;
  ssize_t n;
  // MSG_TRUNC reports the datagram's real length, so an oversized one is
  // seen as broken rather than silently cut to 40 bytes.
  do {
    n = recv(fd_, message, sizeof *message, MSG_TRUNC);
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof *message);
}

bool ControlChannel::Receive(ControlMessage* message, uint64_t spin_ns) const {
  if (spin_ns > 0 && fd_ >= 0) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(spin_ns);
    do {
      const ssize_t n = recv(fd_, message, sizeof *message, MSG_TRUNC | MSG_DONTWAIT);
      if (n >= 0) return n == static_cast<ssize_t>(sizeof *message);
      if (errno != EAGAIN && errno != EINTR) return false;
      // The peer may be queued on this very core (a busy box): let it run.
      sched_yield();
    } while (std::chrono::steady_clock::now() < deadline);
  }
  return Receive(message);
}

bool AdaptiveSpin::Receive(const ControlChannel& channel, ControlMessage* message) {
  if (window_ns_ == 0) return channel.Receive(message);
  const auto start = std::chrono::steady_clock::now();
  const bool received = channel.Receive(message, polling() ? window_ns_ : 0);
  // A wait that slept counts its wake-up too: it is short only when the
  // message came well within the window, which errs towards sleeping.
  last_was_short_ = std::chrono::steady_clock::now() - start <=
                    std::chrono::nanoseconds(window_ns_);
  return received;
}

void ControlChannel::Close() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

void ControlChannel::Shutdown() const {
  if (fd_ >= 0) shutdown(fd_, SHUT_RDWR);
}

}  // namespace inferd::python

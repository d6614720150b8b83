// One end of a Unix SOCK_SEQPACKET socket carrying ControlMessages: the
// kernel keeps message boundaries, so a send is one whole message (atomic
// between the stub's threads) and a receive never sees half of one. A round
// trip between two processes costs about 3.5 us back to back and 7 to 9 us
// when the receiver had gone to sleep, on the 2-core dev box (bench/bench.py,
// section 6); shared-memory futexes would save little over that, since the
// wake-up, not the copy, is what costs.
// Send is thread-safe (one syscall); Receive must have one caller at a time.
#ifndef INFERD_BACKENDS_PYTHON_CONTROL_CHANNEL_H_
#define INFERD_BACKENDS_PYTHON_CONTROL_CHANNEL_H_

#include <cstdint>

#include "control_message.h"

namespace inferd::python {

class ControlChannel {
 public:
  // Takes ownership of the socket `fd` (-1: a closed channel).
  explicit ControlChannel(int fd = -1) : fd_(fd) {}
  ~ControlChannel() { Close(); }
  ControlChannel(const ControlChannel&) = delete;
  ControlChannel& operator=(const ControlChannel&) = delete;

  // A connected pair; false with errno set when the kernel refuses.
  static bool Pair(ControlChannel* a, ControlChannel* b);

  // False when the peer is gone (never raises SIGPIPE).
  bool Send(const ControlMessage& message) const { return SendTo(fd_, message); }
  // Send on a descriptor another object owns (and keeps open meanwhile).
  static bool SendTo(int fd, const ControlMessage& message);
  // Blocks for the next message. False at end of stream (the peer closed or
  // died), on an error, or for a datagram that is not exactly one message
  // (a broken peer: the caller treats the channel as dead).
  bool Receive(ControlMessage* message) const;
  // As Receive, but first polls without sleeping for up to `spin_ns`: a
  // message due soon then costs no wake-up of this thread (on a loaded
  // 2-core box one is 5 to 25 us).
  bool Receive(ControlMessage* message, uint64_t spin_ns) const;
  // Ends the stream for the peer and releases the descriptor.
  void Close();
  // Wakes a blocked Receive (which then fails) without closing the descriptor.
  void Shutdown() const;

  int fd() const { return fd_; }
  void Reset(int fd) {
    Close();
    fd_ = fd;
  }

 private:
  int fd_;
};

// Polls before sleeping only where that pays: while the previous wait ended
// within the window. An answer due in microseconds (an execute() under way,
// the next batch at saturation) then costs no wake-up, and sparse traffic,
// whose waits are long, or a box too busy to run the peer at once, costs no
// polling at all: one long wait turns it off, one short wait back on.
// One receiver at a time, as ControlChannel::Receive.
class AdaptiveSpin {
 public:
  explicit AdaptiveSpin(uint64_t window_ns) : window_ns_(window_ns) {}
  // Receives the next message on `channel`, polling first when it pays.
  bool Receive(const ControlChannel& channel, ControlMessage* message);
  // Whether the next Receive polls first.
  bool polling() const { return window_ns_ > 0 && last_was_short_; }

 private:
  const uint64_t window_ns_;
  bool last_was_short_ = true;
};

}  // namespace inferd::python

#endif  // INFERD_BACKENDS_PYTHON_CONTROL_CHANNEL_H_

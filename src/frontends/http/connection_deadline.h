// When a connection's current phase (waiting for and reading a request's
// head, reading its body, writing a response) must end, and when its one
// timer has to wake. The deadline moves with every phase but the timer is
// re-armed only when the new deadline is earlier than its pending wake-up; a
// wake-up before the deadline just waits again. So a request costs a clock
// read per phase, not a timer operation (the io threads stay cheap).
// Pure logic on given time points; the session owns the timer. Not
// thread-safe (a session's strand uses it).
#ifndef INFERD_FRONTENDS_HTTP_CONNECTION_DEADLINE_H_
#define INFERD_FRONTENDS_HTTP_CONNECTION_DEADLINE_H_

#include <chrono>
#include <optional>

namespace inferd::http {

class ConnectionDeadline {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  using Duration = std::chrono::steady_clock::duration;

  // What a timer wake-up means.
  enum class Wake {
    kExpired,  // the deadline passed: close the connection
    kWait,     // the deadline moved later: wait again until wake_at()
    kIdle,     // no deadline now: the timer stays off until Set arms it
  };

  // A phase that must end `limit` after `now`; a zero limit clears the
  // deadline. True when the timer must be (re)armed to wake at wake_at().
  bool Set(Duration limit, TimePoint now);
  // No deadline (the request waits for the server). The timer may still
  // wake once; OnWake then says kIdle.
  void Clear() { deadline_.reset(); }
  // The timer woke at `now` (its wait completed, not cancelled).
  Wake OnWake(TimePoint now);
  // When the timer is to wake; valid after Set returned true or OnWake kWait.
  TimePoint wake_at() const { return *wake_at_; }
  // The timer was cancelled for good (the connection closed).
  void Stop() {
    deadline_.reset();
    wake_at_.reset();
  }

 private:
  std::optional<TimePoint> deadline_;
  std::optional<TimePoint> wake_at_;  // the pending wake-up; none when the timer is off
};

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_CONNECTION_DEADLINE_H_

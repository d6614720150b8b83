// How long the thread that handed a batch to the stub polls for the answer
// before it sleeps. A sleeping waiter is woken by the stub's send; on a VM
// that wake-up of an idle core costs both sides tens of microseconds of CPU
// and latency (bench section 7), more than a trivial execute() takes, so a
// waiter that polls for an answer due soon saves CPU as well as time. An
// answer that is not due soon is never polled for: the window follows the
// recent turnarounds (send to answer) and is at most `max_ns`. A poll that
// fails (the answer came later: a slow execute(), a busy box, a stub woken
// from a deeply idle core) stops polling for the next 1, 3, 7 ... 63 waits,
// the more the more polls failed of late (each failure weighs twice a
// success): so polling goes on while two polls in three succeed, and a model
// whose answers keep coming late costs one failed poll per 64 waits. Pure
// policy (no clock, no I/O): the caller measures. One waiter at a time.
#ifndef INFERD_BACKENDS_PYTHON_TURNAROUND_SPIN_H_
#define INFERD_BACKENDS_PYTHON_TURNAROUND_SPIN_H_

#include <cstdint>

namespace inferd::python {

class TurnaroundSpin {
 public:
  // `max_ns` 0: never poll.
  explicit TurnaroundSpin(uint64_t max_ns) : max_ns_(max_ns), typical_ns_(max_ns / 2) {}

  // How long the next wait polls before it sleeps (0: it sleeps at once).
  uint64_t Window();
  // The wait Window() answered `window_ns` for took `waited_ns`.
  void Record(uint64_t window_ns, uint64_t waited_ns);

  // The recent turnaround (an average weighting the last eight waits most).
  uint64_t typical_ns() const { return typical_ns_; }

 private:
  static constexpr int kMaxBackoff = 6;  // at most 63 waits without polling

  const uint64_t max_ns_;
  uint64_t typical_ns_;
  // Failed polls of late, twice each, less one per successful poll (up to
  // 2 * kMaxBackoff); half of it is the back-off's exponent.
  int failures_ = 0;
  uint32_t skip_ = 0;  // waits left that sleep at once
};

}  // namespace inferd::python

#endif  // INFERD_BACKENDS_PYTHON_TURNAROUND_SPIN_H_

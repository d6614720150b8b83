#pragma once

#include <chrono>

namespace inferd::http {

// Whether an I/O thread that just ran out of work should keep looking for more
// for a short window before it sleeps.
//
// Looking pays when the next request arrives within the window: the thread is
// awake and the request skips a wake-up (at one connection on two cores, p50
// 38 -> 30 us). It costs the whole window's CPU when nothing comes, which at
// an everyday 3,000 req/s is most times (70 us of CPU per request measured).
// So the thread keeps a running estimate of how often work arrives within the
// window of going idle, from its looks and from how long its sleeps lasted,
// and looks only while that is the usual case.
class IdleLookPolicy {
 public:
  static constexpr std::chrono::microseconds kWindow{50};

  bool ShouldLook() const { return score_ >= kLookAbove; }

  // After a look: whether work turned up within the window.
  void OnLook(bool found) { Record(found); }

  // After sleeping instead: how long until work woke the thread.
  void OnSleep(std::chrono::steady_clock::duration slept) { Record(slept < kWindow); }

 private:
  // Fixed point: kOne means work always came within the window.
  static constexpr int kOne = 1 << 10;
  // Looking must have paid about three times in four: a miss costs the whole
  // window, a hit saves only a wake-up.
  static constexpr int kLookAbove = kOne * 3 / 4;
  // Each event moves the estimate by an eighth of the way: a few sparse
  // requests stop the looking, a few quick ones start it again.
  static constexpr int kShift = 3;

  void Record(bool quick) { score_ += ((quick ? kOne : 0) - score_) >> kShift; }

  int score_ = kOne;  // a server starts looking: its first requests come in bursts
};

}  // namespace inferd::http

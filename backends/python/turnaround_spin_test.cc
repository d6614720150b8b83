#include "turnaround_spin.h"

#include <gtest/gtest.h>

namespace inferd::python {
namespace {

constexpr uint64_t kUs = 1000;

// Runs `waits` waits that each take `waited_ns` (simulated: the policy is
// told, nothing sleeps); returns how many of them polled.
int Waits(TurnaroundSpin* spin, int waits, uint64_t waited_ns) {
  int polled = 0;
  for (int i = 0; i < waits; ++i) {
    const uint64_t window = spin->Window();
    polled += window > 0;
    spin->Record(window, waited_ns);
  }
  return polled;
}

TEST(TurnaroundSpinTest, WindowFollowsTheRecentTurnaroundUpToTheBound) {
  TurnaroundSpin spin(100 * kUs);
  EXPECT_EQ(spin.Window(), 100 * kUs);  // nothing known yet: the bound
  spin.Record(100 * kUs, 10 * kUs);
  EXPECT_EQ(Waits(&spin, 40, 10 * kUs), 40);  // answers within the window: always poll
  EXPECT_NEAR(static_cast<double>(spin.typical_ns()), 10.0 * kUs, 0.5 * kUs);
  EXPECT_NEAR(static_cast<double>(spin.Window()), 20.0 * kUs, 1.0 * kUs);
}

TEST(TurnaroundSpinTest, LateAnswersBackOffToOnePollIn64Waits) {
  TurnaroundSpin spin(100 * kUs);
  // A slow execute() (1 ms): each failed poll doubles the waits that sleep at once.
  EXPECT_EQ(Waits(&spin, 1 + 2 + 4 + 8 + 16 + 32 + 64, 1000 * kUs), 7);
  // From then on one probe (at the bound) in 64 waits.
  EXPECT_EQ(Waits(&spin, 640, 1000 * kUs), 10);
  EXPECT_EQ(Waits(&spin, 63, 1000 * kUs), 0);
  EXPECT_EQ(spin.Window(), 100 * kUs);
}

TEST(TurnaroundSpinTest, APollThatSucceedsEndsTheBackOff) {
  TurnaroundSpin spin(100 * kUs);
  Waits(&spin, 200, 1000 * kUs);  // backed off
  // The model sped up: the next probe succeeds and polling resumes at once,
  // its window shrinking towards the new turnaround.
  Waits(&spin, 64, 10 * kUs);
  EXPECT_EQ(Waits(&spin, 64, 10 * kUs), 64);
  EXPECT_LT(spin.Window(), 25 * kUs);
}

// Waits that are late one time in `period` (1 ms), else 5 us; how many of
// `waits` polled.
int PolledWithLateOneIn(int period, int waits) {
  TurnaroundSpin spin(100 * kUs);
  int polled = 0;
  for (int i = 0; i < waits; ++i) {
    const uint64_t window = spin.Window();
    polled += window > 0;
    spin.Record(window, i % period == 0 ? 1000 * kUs : 5 * kUs);
  }
  return polled;
}

TEST(TurnaroundSpinTest, PollingGoesOnWhileTwoPollsInThreeSucceed) {
  // One late answer in five: every wait polls but the one after a late one.
  EXPECT_GE(PolledWithLateOneIn(5, 1000), 790);
  // Every other answer late (a stub on a deeply idle core at sparse load):
  // polling backs off to a small share of the waits.
  EXPECT_LT(PolledWithLateOneIn(2, 1000), 150);
}

TEST(TurnaroundSpinTest, ABoundOfZeroNeverPolls) {
  TurnaroundSpin spin(0);
  EXPECT_EQ(Waits(&spin, 10, 1 * kUs), 0);
}

}  // namespace
}  // namespace inferd::python

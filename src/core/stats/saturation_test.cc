#include "core/stats/saturation.h"

#include <gtest/gtest.h>

#include <chrono>

#include "core/timing/fake_clock.h"

namespace inferd {
namespace {

using std::chrono::seconds;

uint64_t Ns(int s) { return static_cast<uint64_t>(s) * 1'000'000'000; }

TEST(SaturationTest, ARunningExecutionCountsAsBusyUntilItEnds) {
  FakeClock clock(0);
  Saturation saturation(clock, Ns(10));
  EXPECT_EQ(saturation.Read(1), 0.0);  // no time has passed
  saturation.Begin(clock.NowNs());
  clock.Advance(seconds(4));
  EXPECT_DOUBLE_EQ(saturation.Read(1), 1.0);  // busy all 4 s, still running
  EXPECT_DOUBLE_EQ(saturation.Read(2), 0.5);  // one of two instances
  saturation.End(0, clock.NowNs());
  clock.Advance(seconds(4));
  EXPECT_DOUBLE_EQ(saturation.Read(1), 0.5);  // 4 busy of 8
}

TEST(SaturationTest, OldBusyTimeLeavesTheWindow) {
  FakeClock clock(0);
  Saturation saturation(clock, Ns(10));
  saturation.Begin(0);
  clock.Advance(seconds(10));
  saturation.End(0, clock.NowNs());
  EXPECT_DOUBLE_EQ(saturation.Read(1), 1.0);  // sampled at 10 s
  for (int i = 0; i < 4; ++i) {
    clock.Advance(seconds(3));
    saturation.Read(1);  // reads take samples, a few per window
  }
  // At 22 s the base is the sample of 10 s: idle since.
  EXPECT_DOUBLE_EQ(saturation.Read(1), 0.0);
}

TEST(SaturationTest, ConcurrentExecutionsOnSeveralInstancesAddUp) {
  FakeClock clock(0);
  Saturation saturation(clock, Ns(10));
  saturation.Begin(0);
  clock.Advance(seconds(2));
  saturation.Begin(clock.NowNs());
  clock.Advance(seconds(2));
  // Instance A busy 4 s, B 2 s, of 2 x 4 s.
  EXPECT_DOUBLE_EQ(saturation.Read(2), 0.75);
  EXPECT_EQ(saturation.Read(0), 0.0);
}

}  // namespace
}  // namespace inferd

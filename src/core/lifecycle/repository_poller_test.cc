// The poller in simulated time: it polls each time the interval has passed on
// its clock, and stops at once when destroyed.
#include "core/lifecycle/repository_poller.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>

#include "core/timing/fake_clock.h"

namespace inferd {
namespace {

using std::chrono::seconds;

TEST(RepositoryPollerTest, PollsEachTimeTheIntervalHasPassedOnItsClock) {
  FakeClock clock;
  std::atomic<int> polls{0};
  {
    RepositoryPoller poller([&] { ++polls; }, seconds(5), clock);
    ASSERT_TRUE(clock.AwaitWaiters(1));
    clock.Advance(seconds(4));
    ASSERT_TRUE(clock.AwaitWaiters(1));
    EXPECT_EQ(polls.load(), 0);
    clock.Advance(seconds(1));
    ASSERT_TRUE(clock.AwaitWaiters(1));  // polled, and waits for the next interval
    EXPECT_EQ(polls.load(), 1);
    clock.Advance(seconds(12));  // one poll: the next interval starts after it
    ASSERT_TRUE(clock.AwaitWaiters(1));
    EXPECT_EQ(polls.load(), 2);
  }
  EXPECT_EQ(polls.load(), 2);
}

TEST(RepositoryPollerTest, DestroyingItDoesNotWaitForTheInterval) {
  FakeClock clock;
  std::atomic<int> polls{0};
  {
    RepositoryPoller poller([&] { ++polls; }, seconds(3600), clock);
    ASSERT_TRUE(clock.AwaitWaiters(1));
  }
  EXPECT_EQ(polls.load(), 0);
}

}  // namespace
}  // namespace inferd

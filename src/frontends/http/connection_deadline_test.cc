#include "http/connection_deadline.h"

#include <gtest/gtest.h>

namespace inferd::http {
namespace {

using std::chrono::seconds;
using Wake = ConnectionDeadline::Wake;

const ConnectionDeadline::TimePoint kStart{seconds(1000)};

TEST(ConnectionDeadlineTest, TheFirstPhaseArmsTheTimer) {
  ConnectionDeadline deadline;
  EXPECT_TRUE(deadline.Set(seconds(5), kStart));
  EXPECT_EQ(deadline.wake_at(), kStart + seconds(5));
  EXPECT_EQ(deadline.OnWake(kStart + seconds(5)), Wake::kExpired);
}

TEST(ConnectionDeadlineTest, ALaterDeadlineWaitsForThePendingWakeUp) {
  ConnectionDeadline deadline;
  ASSERT_TRUE(deadline.Set(seconds(5), kStart));
  // Each request of a busy keep-alive connection moves the deadline on
  // without touching the timer.
  EXPECT_FALSE(deadline.Set(seconds(5), kStart + seconds(3)));
  EXPECT_FALSE(deadline.Set(seconds(5), kStart + seconds(4)));
  EXPECT_EQ(deadline.OnWake(kStart + seconds(5)), Wake::kWait);
  EXPECT_EQ(deadline.wake_at(), kStart + seconds(9));
  EXPECT_EQ(deadline.OnWake(kStart + seconds(9)), Wake::kExpired);
}

TEST(ConnectionDeadlineTest, AnEarlierDeadlineRearmsTheTimer) {
  ConnectionDeadline deadline;
  ASSERT_TRUE(deadline.Set(seconds(300), kStart));  // idle: long
  EXPECT_TRUE(deadline.Set(seconds(2), kStart + seconds(1)));  // writing: short
  EXPECT_EQ(deadline.wake_at(), kStart + seconds(3));
  EXPECT_EQ(deadline.OnWake(kStart + seconds(3)), Wake::kExpired);
}

TEST(ConnectionDeadlineTest, NoDeadlineWhileTheServerWorks) {
  ConnectionDeadline deadline;
  ASSERT_TRUE(deadline.Set(seconds(5), kStart));
  deadline.Clear();  // the request waits for the model, however long
  EXPECT_EQ(deadline.OnWake(kStart + seconds(5)), Wake::kIdle);
  // The timer is off now: the next phase arms it again.
  EXPECT_TRUE(deadline.Set(seconds(5), kStart + seconds(60)));
  EXPECT_EQ(deadline.OnWake(kStart + seconds(64)), Wake::kWait);
  EXPECT_EQ(deadline.OnWake(kStart + seconds(65)), Wake::kExpired);
}

TEST(ConnectionDeadlineTest, AZeroLimitMeansNoTimeout) {
  ConnectionDeadline deadline;
  EXPECT_FALSE(deadline.Set(seconds(0), kStart));
  ASSERT_TRUE(deadline.Set(seconds(5), kStart));
  EXPECT_FALSE(deadline.Set(seconds(0), kStart + seconds(1)));
  EXPECT_EQ(deadline.OnWake(kStart + seconds(5)), Wake::kIdle);
}

TEST(ConnectionDeadlineTest, AStoppedDeadlineArmsAfresh) {
  ConnectionDeadline deadline;
  ASSERT_TRUE(deadline.Set(seconds(5), kStart));
  deadline.Stop();
  EXPECT_TRUE(deadline.Set(seconds(10), kStart + seconds(1)));
  EXPECT_EQ(deadline.wake_at(), kStart + seconds(11));
}

}  // namespace
}  // namespace inferd::http

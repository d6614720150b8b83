// LiveCalls, which holds the gRPC frontend's queue open until no call is left,
// and QueueLoad, which tells when the queue's thread falls behind.
#include "grpc/queue_call.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace inferd::grpc_frontend {
namespace {

TEST(LiveCallsTest, WaitForNoneReturnsAtOnceWhenNoCallLives) {
  LiveCalls live;
  live.WaitForNone();
  live.Add();
  live.Remove();
  live.WaitForNone();
}

TEST(LiveCallsTest, WaitForNoneReturnsOnlyAfterTheLastCallEnds) {
  LiveCalls live;
  live.Add();
  live.Add();
  std::atomic<int> removed{0};
  std::atomic<int> seen_by_waiter{-1};
  std::thread waiter([&] {
    live.WaitForNone();
    seen_by_waiter = removed.load();
  });
  removed = 1;
  live.Remove();
  removed = 2;
  live.Remove();
  waiter.join();
  // The waiter returned after the second Remove, whenever it ran.
  EXPECT_EQ(seen_by_waiter.load(), 2);
}

TEST(QueueLoadTest, FallsBehindOnlyAfterALongRunOfWaitsThatDidNotSleep) {
  QueueLoad load;
  EXPECT_FALSE(load.behind());
  // One call's events in a row (its arrival after a sleep, then its answer
  // sent and its end at once) are not a backlog.
  for (int call = 0; call < 100; ++call) {
    load.Observe(200'000);
    load.Observe(500);
    load.Observe(100);
    EXPECT_FALSE(load.behind());
  }
  load.Observe(200'000);
  for (int i = 1; i < QueueLoad::kRunToFallBehind; ++i) {
    load.Observe(QueueLoad::kNoSleepNs);
    EXPECT_FALSE(load.behind()) << i;
  }
  load.Observe(0);
  EXPECT_TRUE(load.behind());
  load.Observe(1'000);
  EXPECT_TRUE(load.behind());
  // One wait that slept: the thread caught up.
  load.Observe(QueueLoad::kNoSleepNs + 1);
  EXPECT_FALSE(load.behind());
}

}  // namespace
}  // namespace inferd::grpc_frontend

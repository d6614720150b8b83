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

TEST(QueueLoadTest, BehindWhileTheThreadFindsItsEventsWaiting) {
  QueueLoad load;
  EXPECT_FALSE(load.behind());
  load.Observe(/*slept=*/false);  // the event was there already
  EXPECT_TRUE(load.behind());
  load.Observe(/*slept=*/false);
  EXPECT_TRUE(load.behind());
  load.Observe(/*slept=*/true);  // caught up: it waited for this one
  EXPECT_FALSE(load.behind());
}

}  // namespace
}  // namespace inferd::grpc_frontend

// The sweeper calls each queue back at its deadline on its clock, keeps the
// earliest one, reschedules what a sweep returns, and never calls a forgotten
// queue. Simulated time: nothing here depends on how fast the machine is.
#include "core/timing/queue_sweeper.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "core/timing/fake_clock.h"

namespace inferd {
namespace {

using std::chrono::milliseconds;

// Records when it was swept and returns the deadlines it is given, in turn.
class FakeQueue : public ExpiringQueue {
 public:
  explicit FakeQueue(std::vector<uint64_t> next = {}) : next_(std::move(next)) {}

  uint64_t SweepExpired(uint64_t now_ns) override {
    MutexLock lock(&mu_);
    swept_at_.push_back(now_ns);
    changed_.SignalAll();
    if (calls_ < next_.size()) return next_[calls_++];
    return 0;
  }

  // Waits until it was swept `count` times (or 10 s of real time); returns the
  // sweep times.
  std::vector<uint64_t> WaitForSweeps(size_t count) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    MutexLock lock(&mu_);
    while (swept_at_.size() < count && changed_.WaitUntil(&mu_, give_up)) {
    }
    return swept_at_;
  }

  size_t sweeps() {
    MutexLock lock(&mu_);
    return swept_at_.size();
  }

 private:
  Mutex mu_;
  CondVar changed_;
  std::vector<uint64_t> swept_at_ GUARDED_BY(mu_);
  std::vector<uint64_t> next_;
  size_t calls_ GUARDED_BY(mu_) = 0;
};

class QueueSweeperTest : public testing::Test {
 protected:
  FakeClock clock_;
  QueueSweeper sweeper_{clock_};
};

TEST_F(QueueSweeperTest, CallsBackAtTheDeadlineAndNotBefore) {
  FakeQueue queue;
  sweeper_.Register(&queue);
  const uint64_t deadline = clock_.NowNs() + 20'000'000;
  sweeper_.Schedule(&queue, deadline);
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  clock_.Advance(milliseconds(19));
  ASSERT_TRUE(clock_.AwaitWaiters(1));  // looked at 19 ms and went back to sleep
  EXPECT_EQ(queue.sweeps(), 0u);
  clock_.Advance(milliseconds(1));
  const std::vector<uint64_t> swept = queue.WaitForSweeps(1);
  ASSERT_EQ(swept.size(), 1u);
  EXPECT_EQ(swept[0], deadline);
  sweeper_.Forget(&queue);
}

TEST_F(QueueSweeperTest, KeepsTheEarliestDeadlineAndReschedulesTheReturnedOne) {
  const uint64_t start = clock_.NowNs();
  FakeQueue queue({start + 30'000'000});
  sweeper_.Register(&queue);
  sweeper_.Schedule(&queue, start + 10'000'000);
  sweeper_.Schedule(&queue, start + 60'000'000'000);  // later: ignored
  clock_.Advance(milliseconds(10));
  ASSERT_EQ(queue.WaitForSweeps(1).size(), 1u);
  ASSERT_TRUE(clock_.AwaitWaiters(1));  // rescheduled for 30 ms, asleep
  clock_.Advance(milliseconds(20));
  const std::vector<uint64_t> swept = queue.WaitForSweeps(2);
  ASSERT_EQ(swept.size(), 2u);
  EXPECT_EQ(swept[0], start + 10'000'000);
  EXPECT_EQ(swept[1], start + 30'000'000);
  sweeper_.Forget(&queue);
}

TEST_F(QueueSweeperTest, SweepSoonCallsBackAtTheCurrentTime) {
  FakeQueue queue;
  sweeper_.Register(&queue);
  sweeper_.SweepSoon(&queue);
  const std::vector<uint64_t> swept = queue.WaitForSweeps(1);
  ASSERT_EQ(swept.size(), 1u);
  EXPECT_EQ(swept[0], clock_.NowNs());
  sweeper_.Forget(&queue);
}

TEST_F(QueueSweeperTest, AForgottenQueueIsNeverCalled) {
  FakeQueue forgotten;
  FakeQueue witness;
  sweeper_.Register(&forgotten);
  sweeper_.Register(&witness);
  const uint64_t at = clock_.NowNs() + 10'000'000;
  sweeper_.Schedule(&forgotten, at);
  sweeper_.Schedule(&witness, at + 5'000'000);
  sweeper_.Forget(&forgotten);
  clock_.Advance(milliseconds(15));
  // The witness, due later, is swept: the forgotten one's time has passed too.
  ASSERT_EQ(witness.WaitForSweeps(1).size(), 1u);
  EXPECT_EQ(forgotten.sweeps(), 0u);
  // Scheduling a forgotten (or never registered) queue does nothing.
  sweeper_.SweepSoon(&forgotten);
  FakeQueue stranger;
  sweeper_.SweepSoon(&stranger);
  sweeper_.SweepSoon(&witness);  // a later sweep shows the first two passed
  ASSERT_EQ(witness.WaitForSweeps(2).size(), 2u);
  EXPECT_EQ(forgotten.sweeps(), 0u);
  EXPECT_EQ(stranger.sweeps(), 0u);
  sweeper_.Forget(&witness);
}

}  // namespace
}  // namespace inferd

// The sweeper calls each queue back at its deadline, keeps the earliest one,
// reschedules what a sweep returns, and never calls a forgotten queue.
#include "core/scheduler/queue_sweeper.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "core/common/clock.h"

namespace inferd {
namespace {

using std::chrono::milliseconds;

// Records when it was swept and returns the deadlines it is given, in turn.
class FakeQueue : public ExpiringQueue {
 public:
  explicit FakeQueue(std::vector<uint64_t> next = {}) : next_(std::move(next)) {}

  uint64_t SweepExpired(uint64_t now_ns) override {
    std::lock_guard<std::mutex> lock(mu_);
    swept_at_.push_back(now_ns);
    changed_.notify_all();
    if (calls_ < next_.size()) return next_[calls_++];
    return 0;
  }

  // Waits until it was swept `count` times (or 5 s); returns the sweep times.
  std::vector<uint64_t> WaitForSweeps(size_t count) {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait_for(lock, std::chrono::seconds(5), [&] { return swept_at_.size() >= count; });
    return swept_at_;
  }

  size_t sweeps() {
    std::lock_guard<std::mutex> lock(mu_);
    return swept_at_.size();
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  std::vector<uint64_t> swept_at_;
  std::vector<uint64_t> next_;
  size_t calls_ = 0;
};

TEST(QueueSweeperTest, CallsBackNoEarlierThanTheDeadline) {
  FakeQueue queue;
  QueueSweeper::Instance().Register(&queue);
  const uint64_t deadline = NowNs() + 20'000'000;
  QueueSweeper::Instance().Schedule(&queue, deadline);
  const std::vector<uint64_t> swept = queue.WaitForSweeps(1);
  ASSERT_EQ(swept.size(), 1u);
  EXPECT_GE(swept[0], deadline);
  QueueSweeper::Instance().Forget(&queue);
}

TEST(QueueSweeperTest, KeepsTheEarliestDeadlineAndReschedulesTheReturnedOne) {
  const uint64_t start = NowNs();
  FakeQueue queue({start + 30'000'000});
  QueueSweeper::Instance().Register(&queue);
  QueueSweeper::Instance().Schedule(&queue, start + 10'000'000);
  QueueSweeper::Instance().Schedule(&queue, start + 60'000'000'000);  // later: ignored
  const std::vector<uint64_t> swept = queue.WaitForSweeps(2);
  ASSERT_EQ(swept.size(), 2u);
  EXPECT_GE(swept[0], start + 10'000'000);
  EXPECT_LT(swept[0], start + 30'000'000'000);  // not the ignored minute-long one
  EXPECT_GE(swept[1], start + 30'000'000);
  QueueSweeper::Instance().Forget(&queue);
}

TEST(QueueSweeperTest, AForgottenQueueIsNeverCalled) {
  FakeQueue forgotten;
  FakeQueue witness;
  QueueSweeper::Instance().Register(&forgotten);
  QueueSweeper::Instance().Register(&witness);
  const uint64_t at = NowNs() + 10'000'000;
  QueueSweeper::Instance().Schedule(&forgotten, at);
  QueueSweeper::Instance().Schedule(&witness, at + 5'000'000);
  QueueSweeper::Instance().Forget(&forgotten);
  // The witness, due later, is swept: the forgotten one's time has passed too.
  ASSERT_EQ(witness.WaitForSweeps(1).size(), 1u);
  EXPECT_EQ(forgotten.sweeps(), 0u);
  // Scheduling a forgotten (or never registered) queue does nothing.
  QueueSweeper::Instance().Schedule(&forgotten, NowNs());
  FakeQueue stranger;
  QueueSweeper::Instance().Schedule(&stranger, NowNs());
  QueueSweeper::Instance().Register(&witness);  // a later sweep shows the first two passed
  QueueSweeper::Instance().Schedule(&witness, NowNs());
  ASSERT_EQ(witness.WaitForSweeps(2).size(), 2u);
  EXPECT_EQ(forgotten.sweeps(), 0u);
  EXPECT_EQ(stranger.sweeps(), 0u);
  QueueSweeper::Instance().Forget(&witness);
}

}  // namespace
}  // namespace inferd

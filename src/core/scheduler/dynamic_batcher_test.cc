// The dynamic batcher in simulated time, forming batches: preferred sizes,
// the queue delay, max_batch_size, shapes, and when a waiting instance wakes.
// dynamic_batcher_queue_test.cc has the queue policies.
//
// An instance is played by an InstanceThread (one NextBatch on its own
// thread). FakeClock::AwaitWaiters(n) tells when the instance (and the
// QueueSweeper, while a deadline is pending) has looked at the current time
// and gone back to sleep: only then does the test check that nothing happened
// yet, or advance the clock. Nothing here depends on the machine's speed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "core/test_util/dynamic_batcher_fixture.h"

namespace inferd {
namespace {

using ::testing::ElementsAre;
using std::chrono::milliseconds;

// --- Forming batches

TEST_F(DynamicBatcherTest, SendsAtOnceWhenAPreferredSizeIsReached) {
  StartBatcher("preferred_batch_size: [ 4 ] max_queue_delay_microseconds: 100000");
  Enqueue("a");
  Enqueue("b");
  Enqueue("c");
  InstanceThread instance(batcher_.get(), batcher_.get(), 0);
  ASSERT_TRUE(clock_.AwaitWaiters(1));  // saw three, waits for the delay
  EXPECT_FALSE(instance.returned());

  Enqueue("d");
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_THAT(Ids(instance.batch()), ElementsAre("a", "b", "c", "d"));
  EXPECT_EQ(batcher_->QueuedCount(), 0u);
}

TEST_F(DynamicBatcherTest, SendsTheLargestPreferredSizeAndLeavesTheRestToWait) {
  StartBatcher("preferred_batch_size: [ 2, 4 ] max_queue_delay_microseconds: 100000");
  for (const char* id : {"a", "b", "c", "d", "e"}) Enqueue(id);
  EXPECT_THAT(RunDueBatch(), ElementsAre("a", "b", "c", "d"));

  InstanceThread instance(batcher_.get(), batcher_.get(), 0);
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  EXPECT_FALSE(instance.returned());
  clock_.Advance(milliseconds(100));
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_THAT(Ids(instance.batch()), ElementsAre("e"));
}

TEST_F(DynamicBatcherTest, WithoutAPreferredSizeWaitsTheQueueDelayFromTheOldestRequest) {
  StartBatcher("preferred_batch_size: [ 4 ] max_queue_delay_microseconds: 100000");
  const uint64_t start = clock_.NowNs();
  Enqueue("a");
  clock_.Advance(milliseconds(30));
  Enqueue("b");
  InstanceThread instance(batcher_.get(), batcher_.get(), 0);
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  EXPECT_FALSE(instance.returned());

  clock_.Advance(milliseconds(69));  // 99 ms after a
  ASSERT_TRUE(clock_.AwaitWaiters(1));  // looked at 99 ms and went back to sleep
  EXPECT_FALSE(instance.returned());

  clock_.Advance(milliseconds(1));
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_THAT(Ids(instance.batch()), ElementsAre("a", "b"));
  EXPECT_EQ(clock_.NowNs(), start + 100 * kMs);
}

TEST_F(DynamicBatcherTest, WithoutAQueueDelayAPartialBatchGoesAtOnce) {
  StartBatcher("preferred_batch_size: [ 4 ]");
  Enqueue("a");
  Enqueue("b");
  EXPECT_THAT(RunDueBatch(), ElementsAre("a", "b"));
}

TEST_F(DynamicBatcherTest, MaxBatchSizeCapsTheRowsOfABatch) {
  StartBatcher("max_queue_delay_microseconds: 100000", /*max_batch_size=*/4);
  Enqueue("a", /*rows=*/2);
  Enqueue("b", /*rows=*/2);
  Enqueue("c", /*rows=*/1);
  // a and b fill a batch of 4 rows: it goes without waiting; c cannot join.
  std::vector<InferenceRequest*> full = TakeDueBatch();
  EXPECT_THAT(Ids(full), ElementsAre("a", "b"));
  EXPECT_EQ(full[0]->batch_size + full[1]->batch_size, 4u);

  InstanceThread instance(batcher_.get(), batcher_.get(), 1);
  ASSERT_TRUE(clock_.AwaitWaiters(1));  // c alone waits out its delay
  EXPECT_FALSE(instance.returned());
  clock_.Advance(milliseconds(100));
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_THAT(Ids(instance.batch()), ElementsAre("c"));
}

TEST_F(DynamicBatcherTest, RequestsWithDifferentRowShapesDoNotShareABatch) {
  StartBatcher("max_queue_delay_microseconds: 0");
  Enqueue("a", 1, {4});
  Enqueue("b", 2, {4});  // more rows, same per-row shape: joins
  Enqueue("c", 1, {5});
  Enqueue("d", 1, {4});
  EXPECT_THAT(RunDueBatch(), ElementsAre("a", "b"));
  EXPECT_THAT(RunDueBatch(), ElementsAre("c"));
  EXPECT_THAT(RunDueBatch(), ElementsAre("d"));
}

TEST_F(DynamicBatcherTest, RaggedInputsMayDifferInShapeWithinABatch) {
  StartBatcher("max_queue_delay_microseconds: 0", 8,
               R"(input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ -1 ]
                            allow_ragged_batch: true } ])");
  Enqueue("a", 1, {4});
  Enqueue("b", 1, {5});
  Enqueue("c", 1, {3});
  EXPECT_THAT(RunDueBatch(), ElementsAre("a", "b", "c"));
}

// An instance waiting out the delay is woken only when a request could change
// its choice; these show it still wakes for each such request.
TEST_F(DynamicBatcherTest, AWaitingInstanceTakesTheBatchOnceItIsFull) {
  StartBatcher("max_queue_delay_microseconds: 100000", /*max_batch_size=*/4);
  Enqueue("a");
  InstanceThread instance(batcher_.get(), batcher_.get(), 0);
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  Enqueue("b");
  Enqueue("c");
  EXPECT_FALSE(instance.returned());
  Enqueue("d", /*rows=*/1);
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_THAT(Ids(instance.batch()), ElementsAre("a", "b", "c", "d"));
}

TEST_F(DynamicBatcherTest, AWaitingInstanceSendsWhenARequestCannotJoin) {
  StartBatcher("max_queue_delay_microseconds: 100000", /*max_batch_size=*/8);
  Enqueue("a", 1, {4});
  InstanceThread instance(batcher_.get(), batcher_.get(), 0);
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  Enqueue("b", 1, {5});  // another row shape: a's batch can take no more
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_THAT(Ids(instance.batch()), ElementsAre("a"));
}

TEST_F(DynamicBatcherTest, AWaitingInstanceSendsWhenRowsOverflowTheBatch) {
  StartBatcher("max_queue_delay_microseconds: 100000", /*max_batch_size=*/4);
  Enqueue("a", /*rows=*/2);
  InstanceThread instance(batcher_.get(), batcher_.get(), 0);
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  Enqueue("b", /*rows=*/3);  // 5 rows: a goes alone, b waits for the next
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_THAT(Ids(instance.batch()), ElementsAre("a"));
}

TEST_F(DynamicBatcherTest, AWaitingInstanceWakesForAnEarlierTimeout) {
  StartBatcher(R"(max_queue_delay_microseconds: 100000
                  default_queue_policy { allow_timeout_override: true })");
  Enqueue("a");
  InstanceThread instance(batcher_.get(), batcher_.get(), 0);
  ASSERT_TRUE(clock_.AwaitWaiters(1));  // until a's delay, 100 ms
  Enqueue("b", 1, {4}, 0, /*timeout_us=*/10000);
  ASSERT_TRUE(clock_.AwaitWaiters(2));  // the instance and the sweeper, until b's 10 ms
  clock_.Advance(milliseconds(10));
  ASSERT_TRUE(requests_.log().AwaitResponses(1));
  EXPECT_EQ(requests_.log().responses()[0].status.code(), Status::Code::kUnavailable);
  EXPECT_FALSE(instance.returned());
  clock_.Advance(milliseconds(90));
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_THAT(Ids(instance.batch()), ElementsAre("a"));
}

TEST_F(DynamicBatcherTest, AnIdleInstanceWakesForANewRequest) {
  StartBatcher("");
  InstanceThread instance(batcher_.get(), batcher_.get(), 0);
  ASSERT_TRUE(instance.AwaitBlocked());  // nothing queued: waits for work
  EXPECT_FALSE(instance.returned());
  Enqueue("a");
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_TRUE(instance.got_work());
  EXPECT_THAT(Ids(instance.batch()), ElementsAre("a"));
}

TEST_F(DynamicBatcherTest, CountsQueuedAndExecutingRequests) {
  StartBatcher("", /*max_batch_size=*/2);
  Enqueue("a");
  Enqueue("b");
  Enqueue("c");
  EXPECT_EQ(batcher_->QueuedCount(), 3u);
  EXPECT_EQ(batcher_->InflightCount(), 3u);

  std::vector<InferenceRequest*> batch = TakeDueBatch();
  ASSERT_THAT(Ids(batch), ElementsAre("a", "b"));
  EXPECT_EQ(batcher_->QueuedCount(), 1u);
  EXPECT_EQ(batcher_->InflightCount(), 3u);

  CompleteBatch(batch);
  batcher_->BatchDone(0, batch.size());
  EXPECT_EQ(batcher_->QueuedCount(), 1u);
  EXPECT_EQ(batcher_->InflightCount(), 1u);
}

}  // namespace
}  // namespace inferd

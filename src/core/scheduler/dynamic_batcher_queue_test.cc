// The dynamic batcher in simulated time, its queues: priority levels, queue
// policies (size, REJECT and DELAY timeouts, override), cancellation, Stop,
// and preserve_ordering. dynamic_batcher_test.cc has the forming of batches
// and says how the simulated time works.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "core/test_util/dynamic_batcher_fixture.h"

namespace inferd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using std::chrono::milliseconds;

// --- Priority levels and queue policies

TEST_F(DynamicBatcherTest, ServesPriorityLevelOneBeforeLevelTwo) {
  StartBatcher("priority_levels: 2 default_priority_level: 2", /*max_batch_size=*/1);
  Enqueue("low", 1, {4}, /*priority=*/2);
  Enqueue("default", 1, {4}, /*priority=*/0);
  Enqueue("high", 1, {4}, /*priority=*/1);
  EXPECT_THAT(RunDueBatch(), ElementsAre("high"));
  EXPECT_THAT(RunDueBatch(), ElementsAre("low"));
  EXPECT_THAT(RunDueBatch(), ElementsAre("default"));
}

TEST_F(DynamicBatcherTest, RefusesARequestWhenItsLevelQueueIsFull) {
  StartBatcher(R"(max_queue_delay_microseconds: 100000 priority_levels: 2
                  default_priority_level: 2
                  priority_queue_policy { key: 1 value { max_queue_size: 2 } })");
  Enqueue("high1", 1, {4}, 1);
  Enqueue("high2", 1, {4}, 1);
  Enqueue("low", 1, {4}, 2);  // another level: room

  InferenceRequest* refused = requests_.Make("high3");
  refused->priority = 1;
  const Status status = batcher_->Enqueue(refused);
  EXPECT_EQ(status.code(), Status::Code::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr("model 'batched'"));
  EXPECT_THAT(status.message(), HasSubstr("priority level 1 is full"));
  EXPECT_EQ(batcher_->QueuedCount(), 3u);
  // The caller keeps a refused request: nothing answered or released it.
  EXPECT_THAT(requests_.log().responses(), IsEmpty());
  EXPECT_THAT(requests_.log().released(), IsEmpty());
}

TEST_F(DynamicBatcherTest, RejectsATimedOutRequestAtItsDeadlineWhileNoInstanceAsks) {
  StartBatcher("default_queue_policy { default_timeout_microseconds: 50000 }");
  Enqueue("a");
  clock_.Advance(milliseconds(20));
  Enqueue("b");  // its deadline: 70 ms
  ASSERT_TRUE(clock_.AwaitWaiters(1));  // the sweeper, asleep until 50 ms

  clock_.Advance(milliseconds(29));
  ASSERT_TRUE(clock_.AwaitWaiters(1));  // looked at 49 ms, asleep again
  EXPECT_THAT(requests_.log().responses(), IsEmpty());

  clock_.Advance(milliseconds(1));
  ASSERT_TRUE(requests_.log().AwaitResponses(1));
  std::vector<LoggedResponse> responses = requests_.log().responses();
  EXPECT_EQ(responses[0].request_id, "a");
  EXPECT_TRUE(responses[0].final());
  EXPECT_EQ(responses[0].status.code(), Status::Code::kUnavailable);
  EXPECT_EQ(responses[0].status.message(), "request for model 'batched' timed out in the queue");
  ASSERT_TRUE(requests_.log().AwaitReleases(1));
  EXPECT_THAT(requests_.log().released(), ElementsAre("a"));
  EXPECT_EQ(batcher_->QueuedCount(), 1u);
  // Its latency: the 50 ms it waited, in simulated time.
  EXPECT_EQ(model_->stats().fail.count.load(), 1u);
  EXPECT_EQ(model_->stats().fail.ns.load(), 50 * kMs);

  ASSERT_TRUE(clock_.AwaitWaiters(1));  // rescheduled for b
  clock_.Advance(milliseconds(20));
  ASSERT_TRUE(requests_.log().AwaitResponses(2));
  responses = requests_.log().responses();
  EXPECT_EQ(responses[1].request_id, "b");
  EXPECT_EQ(responses[1].status.code(), Status::Code::kUnavailable);
  EXPECT_EQ(batcher_->QueuedCount(), 0u);
}

TEST_F(DynamicBatcherTest, ATimedOutRequestNeverReachesAWaitingInstance) {
  StartBatcher(R"(preferred_batch_size: [ 2 ] max_queue_delay_microseconds: 100000
                  default_queue_policy { default_timeout_microseconds: 50000 })");
  Enqueue("a");
  InstanceThread instance(batcher_.get(), batcher_.get(), 0);
  ASSERT_TRUE(clock_.AwaitWaiters(2));  // the instance (delay) and the sweeper
  clock_.Advance(milliseconds(50));
  ASSERT_TRUE(requests_.log().AwaitResponses(1));
  EXPECT_EQ(requests_.log().responses()[0].status.code(), Status::Code::kUnavailable);

  clock_.Advance(milliseconds(10));
  Enqueue("b");  // its own delay and timeout start now
  Enqueue("c");  // a preferred batch of two: goes at once
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_THAT(Ids(instance.batch()), ElementsAre("b", "c"));
}

TEST_F(DynamicBatcherTest, DelayMovesATimedOutRequestBehindTheOthersAndStillServesIt) {
  StartBatcher(R"(default_queue_policy { default_timeout_microseconds: 50000
                                         timeout_action: DELAY })",
               /*max_batch_size=*/1);
  Enqueue("a");
  ASSERT_TRUE(clock_.AwaitWaiters(1));  // the sweeper, until a's deadline
  clock_.Advance(milliseconds(60));
  Enqueue("b");
  Enqueue("c");
  EXPECT_THAT(RunDueBatch(), ElementsAre("b"));
  EXPECT_THAT(RunDueBatch(), ElementsAre("c"));
  EXPECT_THAT(RunDueBatch(), ElementsAre("a"));
  const std::vector<LoggedResponse> responses = requests_.log().responses();
  ASSERT_EQ(responses.size(), 3u);
  for (const LoggedResponse& response : responses) {
    EXPECT_TRUE(response.status.ok()) << response.request_id << ": " << response.status.ToString();
  }
}

TEST_F(DynamicBatcherTest, ARequestTimeoutMayShortenTheDefaultWhenAllowed) {
  StartBatcher(R"(default_queue_policy { default_timeout_microseconds: 100000
                                         allow_timeout_override: true })");
  Enqueue("short", 1, {4}, 0, /*timeout_us=*/20000);
  Enqueue("default");
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  clock_.Advance(milliseconds(19));
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  EXPECT_THAT(requests_.log().responses(), IsEmpty());

  clock_.Advance(milliseconds(1));
  ASSERT_TRUE(requests_.log().AwaitResponses(1));
  EXPECT_EQ(requests_.log().responses()[0].request_id, "short");
  EXPECT_EQ(requests_.log().responses()[0].status.code(), Status::Code::kUnavailable);

  ASSERT_TRUE(clock_.AwaitWaiters(1));
  clock_.Advance(milliseconds(79));  // 99 ms
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  EXPECT_EQ(requests_.log().responses().size(), 1u);
  clock_.Advance(milliseconds(1));
  ASSERT_TRUE(requests_.log().AwaitResponses(2));
  EXPECT_EQ(requests_.log().responses()[1].request_id, "default");
}

TEST_F(DynamicBatcherTest, ARequestTimeoutCannotExtendTheDefault) {
  StartBatcher(R"(default_queue_policy { default_timeout_microseconds: 100000
                                         allow_timeout_override: true })");
  Enqueue("long", 1, {4}, 0, /*timeout_us=*/300000);
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  clock_.Advance(milliseconds(100));
  ASSERT_TRUE(requests_.log().AwaitResponses(1));
  EXPECT_EQ(requests_.log().responses()[0].request_id, "long");
  EXPECT_EQ(requests_.log().responses()[0].status.code(), Status::Code::kUnavailable);
}

TEST_F(DynamicBatcherTest, ARequestTimeoutIsIgnoredWithoutOverride) {
  StartBatcher("default_queue_policy { default_timeout_microseconds: 100000 }");
  Enqueue("a", 1, {4}, 0, /*timeout_us=*/20000);
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  clock_.Advance(milliseconds(20));
  ASSERT_TRUE(clock_.AwaitWaiters(1));  // looked at 20 ms: nothing to do
  clock_.Advance(milliseconds(79));
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  EXPECT_THAT(requests_.log().responses(), IsEmpty());
  EXPECT_EQ(batcher_->QueuedCount(), 1u);

  clock_.Advance(milliseconds(1));
  ASSERT_TRUE(requests_.log().AwaitResponses(1));
  EXPECT_EQ(requests_.log().responses()[0].status.code(), Status::Code::kUnavailable);
}

// --- Cancellation and Stop

TEST_F(DynamicBatcherTest, ACancelledRequestLeavesTheQueueAtOnceWithCancelled) {
  StartBatcher("max_queue_delay_microseconds: 100000");
  InferenceRequest* a = Enqueue("a");
  Enqueue("b");
  a->Cancel();
  ASSERT_TRUE(requests_.log().AwaitResponses(1));  // no clock advance needed
  const LoggedResponse response = requests_.log().responses()[0];
  EXPECT_EQ(response.request_id, "a");
  EXPECT_TRUE(response.final());
  EXPECT_EQ(response.status.code(), Status::Code::kCancelled);
  EXPECT_EQ(response.status.message(), "request for model 'batched' was cancelled");
  ASSERT_TRUE(requests_.log().AwaitReleases(1));
  EXPECT_EQ(batcher_->QueuedCount(), 1u);

  clock_.Advance(milliseconds(100));
  EXPECT_THAT(RunDueBatch(), ElementsAre("b"));
}

TEST_F(DynamicBatcherTest, StopDropsQueuedRequestsAndRefusesNewOnes) {
  StartBatcher("max_queue_delay_microseconds: 100000");
  Enqueue("a");
  Enqueue("b");
  batcher_->Stop();

  const std::vector<LoggedResponse> responses = requests_.log().responses();
  ASSERT_EQ(responses.size(), 2u);
  EXPECT_EQ(responses[0].request_id, "a");
  EXPECT_EQ(responses[1].request_id, "b");
  for (const LoggedResponse& response : responses) {
    EXPECT_TRUE(response.final());
    EXPECT_EQ(response.status.code(), Status::Code::kUnavailable);
    EXPECT_THAT(response.status.message(), HasSubstr("model 'batched'"));
    EXPECT_THAT(response.status.message(), HasSubstr("unloaded"));
  }
  EXPECT_THAT(requests_.log().released(), ElementsAre("a", "b"));
  EXPECT_EQ(batcher_->QueuedCount(), 0u);
  EXPECT_EQ(batcher_->InflightCount(), 0u);

  const Status late = batcher_->Enqueue(requests_.Make("late"));
  EXPECT_EQ(late.code(), Status::Code::kUnavailable);
  EXPECT_THAT(late.message(), HasSubstr("model 'batched' is shutting down"));
  EXPECT_EQ(requests_.log().responses().size(), 2u);
}

TEST_F(DynamicBatcherTest, StopReleasesAnIdleInstance) {
  StartBatcher("");
  InstanceThread instance(batcher_.get(), batcher_.get(), 0);
  ASSERT_TRUE(instance.AwaitBlocked());
  batcher_->Stop();
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_FALSE(instance.got_work());
}

TEST_F(DynamicBatcherTest, StopReleasesAnInstanceWaitingOutTheDelay) {
  StartBatcher("max_queue_delay_microseconds: 100000");
  Enqueue("a");
  InstanceThread instance(batcher_.get(), batcher_.get(), 0);
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  batcher_->Stop();
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_FALSE(instance.got_work());
  ASSERT_EQ(requests_.log().responses().size(), 1u);
  EXPECT_EQ(requests_.log().responses()[0].status.code(), Status::Code::kUnavailable);
}

// --- preserve_ordering

TEST_F(DynamicBatcherTest, PreserveOrderingHoldsResponsesUntilEarlierRequestsFinish) {
  StartBatcher("preserve_ordering: true", /*max_batch_size=*/1);
  Enqueue("first");
  Enqueue("second");
  std::vector<InferenceRequest*> on_0 = TakeDueBatch(0);
  std::vector<InferenceRequest*> on_1 = TakeDueBatch(1);
  ASSERT_THAT(Ids(on_0), ElementsAre("first"));
  ASSERT_THAT(Ids(on_1), ElementsAre("second"));

  CompleteBatch(on_1);  // the second finishes first: held
  EXPECT_THAT(requests_.log().responses(), IsEmpty());
  EXPECT_THAT(requests_.log().released(), ElementsAre("second"));

  CompleteBatch(on_0);
  const std::vector<LoggedResponse> responses = requests_.log().responses();
  ASSERT_EQ(responses.size(), 2u);
  EXPECT_EQ(responses[0].request_id, "first");
  EXPECT_EQ(responses[1].request_id, "second");
}

}  // namespace
}  // namespace inferd

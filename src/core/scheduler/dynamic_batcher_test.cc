// The dynamic batcher in simulated time: preferred sizes, the queue delay,
// max_batch_size, shapes, priority levels, queue policies (size, REJECT and
// DELAY timeouts, override), cancellation, Stop, and preserve_ordering.
//
// An instance is played by an InstanceThread (one NextBatch on its own
// thread). FakeClock::AwaitWaiters(n) tells when the instance (and the
// QueueSweeper, while a deadline is pending) has looked at the current time
// and gone back to sleep: only then does the test check that nothing happened
// yet, or advance the clock. Nothing here depends on the machine's speed.
#include "core/scheduler/dynamic_batcher.h"

#include <google/protobuf/text_format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/infer/inference_request.h"
#include "core/test_util/fake_bound_model.h"
#include "core/test_util/instance_thread.h"
#include "core/test_util/request_factory.h"
#include "core/timing/fake_clock.h"
#include "core/timing/queue_sweeper.h"

namespace inferd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using std::chrono::milliseconds;

constexpr uint64_t kMs = 1'000'000;  // ns

class DynamicBatcherTest : public testing::Test {
 protected:
  // Creates the batcher for model "batched" with `max_batch_size` and the
  // `dynamic_batching` settings in `batching` (text format).
  void StartBatcher(const std::string& batching, int max_batch_size = 8,
                    const std::string& inputs = "") {
    inference::ModelConfig config;
    const std::string text = "name: \"batched\" max_batch_size: " +
                             std::to_string(max_batch_size) + " dynamic_batching { " + batching +
                             " } " + inputs;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
    batcher_ = std::make_unique<DynamicBatcher>(config, &sweeper_);
  }

  // Makes request `id` (rows of per-row shape `row_shape`) and queues it now.
  InferenceRequest* Enqueue(const std::string& id, uint64_t rows = 1,
                            const std::vector<int64_t>& row_shape = {4}, uint32_t priority = 0,
                            uint64_t timeout_us = 0) {
    InferenceRequest* request = requests_.Make(id, rows, row_shape);
    request->priority = priority;
    request->timeout_us = timeout_us;
    const Status status = batcher_->Enqueue(request);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return request;
  }

  // Plays instance `instance` asking for a batch that is due now (so it
  // returns without the clock moving); empty, and a failure, if none is.
  std::vector<InferenceRequest*> TakeDueBatch(size_t instance = 0) {
    InstanceThread thread(batcher_.get(), batcher_.get(), instance);
    EXPECT_TRUE(thread.AwaitReturn()) << "no batch was due";
    if (!thread.returned()) return {};
    EXPECT_TRUE(thread.got_work());
    return thread.batch();
  }
  // TakeDueBatch, then executes the batch: a successful final response to
  // each request, its release, BatchDone. Returns the batch's request ids.
  std::vector<std::string> RunDueBatch(size_t instance = 0) {
    std::vector<InferenceRequest*> batch = TakeDueBatch(instance);
    const std::vector<std::string> ids = Ids(batch);
    CompleteBatch(batch);
    batcher_->BatchDone(instance, batch.size());
    return ids;
  }

  FakeClock clock_;
  QueueSweeper sweeper_{clock_};
  std::shared_ptr<FakeBoundModel> model_ = std::make_shared<FakeBoundModel>(clock_, "batched");
  RequestFactory requests_{model_};
  // Last: stopped and destroyed first, while the sweeper and requests live.
  std::unique_ptr<DynamicBatcher> batcher_;
};

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

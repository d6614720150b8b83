// The dynamic batcher's queues on their own: priority levels, queue policies
// (max_queue_size, timeouts with REJECT or DELAY, timeout override) and
// cancellation, with the time passed in explicitly. No threads, no clock.
#include "core/scheduler/request_queues.h"

#include <google/protobuf/text_format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/test_util/fake_bound_model.h"
#include "core/test_util/request_factory.h"
#include "core/timing/fake_clock.h"

namespace inferd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr uint64_t kStart = 1'000'000'000;  // ns
constexpr uint64_t kMs = 1'000'000;         // ns

inference::ModelDynamicBatching Batching(const std::string& text) {
  inference::ModelDynamicBatching batching;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &batching)) << text;
  return batching;
}

class RequestQueuesTest : public testing::Test {
 protected:
  // Pushes a new request `id` at `now`; returns its deadline (0: none).
  uint64_t Push(RequestQueues& queues, const std::string& id, uint64_t now,
                uint32_t priority = 0, uint64_t timeout_us = 0) {
    InferenceRequest* request = requests_.Make(id);
    request->priority = priority;
    request->timeout_us = timeout_us;
    uint64_t deadline = 12345;  // overwritten
    const Status status = queues.Push(request, now, &deadline);
    EXPECT_TRUE(status.ok()) << status.ToString();
    return deadline;
  }

  // Expire(now) into two lists of ids.
  struct Expired {
    std::vector<std::string> cancelled, timed_out;
  };
  Expired Expire(RequestQueues& queues, uint64_t now) {
    std::vector<InferenceRequest*> cancelled, timed_out;
    queues.Expire(now, &cancelled, &timed_out);
    return {Ids(cancelled), Ids(timed_out)};
  }

  static std::vector<std::string> Order(const RequestQueues& queues) {
    std::vector<std::string> ids;
    for (const QueuedRequest* queued : queues.InOrder()) ids.push_back(queued->request->id);
    return ids;
  }

  FakeClock clock_{kStart};
  std::shared_ptr<FakeBoundModel> model_ = std::make_shared<FakeBoundModel>(clock_, "queued");
  RequestFactory requests_{model_};
};

TEST_F(RequestQueuesTest, ServesLevelOneBeforeLevelTwoAndEachLevelInArrivalOrder) {
  RequestQueues queues(Batching("priority_levels: 2 default_priority_level: 2"));
  Push(queues, "low1", kStart, 2);
  Push(queues, "high1", kStart + 1, 1);
  Push(queues, "default", kStart + 2, 0);    // 0: the default level, 2
  Push(queues, "unknown", kStart + 3, 7);    // no such level: the default level
  Push(queues, "high2", kStart + 4, 1);
  EXPECT_THAT(Order(queues), ElementsAre("high1", "high2", "low1", "default", "unknown"));
  EXPECT_EQ(queues.size(), 5u);

  EXPECT_THAT(Ids(queues.PopFront(3)), ElementsAre("high1", "high2", "low1"));
  EXPECT_THAT(Order(queues), ElementsAre("default", "unknown"));
  EXPECT_EQ(queues.size(), 2u);
  EXPECT_THAT(Ids(queues.TakeAll()), ElementsAre("default", "unknown"));
  EXPECT_TRUE(queues.empty());
}

TEST_F(RequestQueuesTest, RefusesARequestWhenItsLevelIsFullNamingTheLevel) {
  RequestQueues queues(Batching(R"(
      priority_levels: 2 default_priority_level: 2
      default_queue_policy { max_queue_size: 2 }
      priority_queue_policy { key: 1 value { max_queue_size: 1 } })"));
  Push(queues, "high1", kStart, 1);
  Push(queues, "low1", kStart, 2);
  Push(queues, "low2", kStart, 2);

  InferenceRequest* high2 = requests_.Make("high2");
  high2->priority = 1;
  uint64_t deadline = 0;
  const Status high_full = queues.Push(high2, kStart, &deadline);
  EXPECT_EQ(high_full.code(), Status::Code::kUnavailable);
  EXPECT_THAT(high_full.message(), HasSubstr("model 'queued'"));
  EXPECT_THAT(high_full.message(), HasSubstr("priority level 1 is full (max_queue_size 1)"));

  InferenceRequest* low3 = requests_.Make("low3");
  low3->priority = 2;
  const Status low_full = queues.Push(low3, kStart, &deadline);
  EXPECT_EQ(low_full.code(), Status::Code::kUnavailable);
  EXPECT_THAT(low_full.message(), HasSubstr("priority level 2 is full (max_queue_size 2)"));

  EXPECT_THAT(Order(queues), ElementsAre("high1", "low1", "low2"));
  // Room again once one leaves.
  queues.PopFront(1);
  Push(queues, "high2", kStart, 1);
  EXPECT_THAT(Order(queues), ElementsAre("high2", "low1", "low2"));
}

// max_queue_size bounds what a level holds, delayed requests included (as
// Triton counts them): otherwise DELAY would let the queue grow without limit,
// max_queue_size more requests every timeout.
TEST_F(RequestQueuesTest, DelayedRequestsStillCountTowardsTheirLevelsMaxQueueSize) {
  RequestQueues queues(Batching(R"(
      priority_levels: 2 default_priority_level: 2
      default_queue_policy { max_queue_size: 2 default_timeout_microseconds: 10000
                             timeout_action: DELAY })"));
  Push(queues, "a", kStart, 2);
  Push(queues, "b", kStart, 2);
  Expire(queues, kStart + 10 * kMs);  // both delayed
  ASSERT_THAT(Order(queues), ElementsAre("a", "b"));

  InferenceRequest* c = requests_.Make("c");
  c->priority = 2;
  uint64_t deadline = 0;
  const Status full = queues.Push(c, kStart + 10 * kMs, &deadline);
  EXPECT_EQ(full.code(), Status::Code::kUnavailable);
  EXPECT_THAT(full.message(), HasSubstr("priority level 2 is full (max_queue_size 2)"));
  Push(queues, "high", kStart + 10 * kMs, 1);  // the other level has room

  // Room again once a delayed one leaves, served or cancelled.
  EXPECT_THAT(Ids(queues.PopFront(2)), ElementsAre("high", "a"));
  EXPECT_TRUE(queues.Push(c, kStart + 10 * kMs, &deadline).ok());
  queues.InOrder()[1]->request->Cancel();  // b, delayed behind c
  Expire(queues, kStart + 10 * kMs);
  Push(queues, "d", kStart + 10 * kMs, 2);
  EXPECT_THAT(Order(queues), ElementsAre("c", "d"));
}

TEST_F(RequestQueuesTest, WithoutATimeoutARequestWaitsForever) {
  RequestQueues queues(Batching(""));
  EXPECT_EQ(Push(queues, "a", kStart, 0, /*timeout_us=*/5000), 0u);  // no override allowed
  EXPECT_EQ(queues.NextDeadline(), 0u);
  const Expired expired = Expire(queues, kStart + 3'600'000 * kMs);
  EXPECT_THAT(expired.timed_out, IsEmpty());
  EXPECT_THAT(Order(queues), ElementsAre("a"));
}

TEST_F(RequestQueuesTest, RejectTakesARequestOutAtItsDeadlineAndNotBefore) {
  RequestQueues queues(Batching("default_queue_policy { default_timeout_microseconds: 50000 }"));
  EXPECT_EQ(Push(queues, "a", kStart), kStart + 50 * kMs);
  EXPECT_EQ(Push(queues, "b", kStart + 20 * kMs), kStart + 70 * kMs);
  EXPECT_EQ(queues.NextDeadline(), kStart + 50 * kMs);

  EXPECT_THAT(Expire(queues, kStart + 50 * kMs - 1).timed_out, IsEmpty());
  EXPECT_EQ(queues.size(), 2u);

  EXPECT_THAT(Expire(queues, kStart + 50 * kMs).timed_out, ElementsAre("a"));
  EXPECT_THAT(Order(queues), ElementsAre("b"));
  EXPECT_EQ(queues.size(), 1u);
  EXPECT_EQ(queues.NextDeadline(), kStart + 70 * kMs);

  EXPECT_THAT(Expire(queues, kStart + 70 * kMs).timed_out, ElementsAre("b"));
  EXPECT_TRUE(queues.empty());
  EXPECT_EQ(queues.NextDeadline(), 0u);
}

TEST_F(RequestQueuesTest, DelayMovesAnExpiredRequestBehindAllOthersWithoutALimit) {
  RequestQueues queues(Batching(
      "default_queue_policy { default_timeout_microseconds: 50000 timeout_action: DELAY }"));
  Push(queues, "a", kStart);
  Push(queues, "b", kStart + 30 * kMs);

  const Expired at_50 = Expire(queues, kStart + 50 * kMs);
  EXPECT_THAT(at_50.timed_out, IsEmpty());
  EXPECT_THAT(at_50.cancelled, IsEmpty());
  EXPECT_THAT(Order(queues), ElementsAre("b", "a"));
  EXPECT_EQ(queues.size(), 2u);
  EXPECT_EQ(queues.NextDeadline(), kStart + 80 * kMs);  // a has none any more

  Push(queues, "c", kStart + 60 * kMs);  // newcomers go ahead of the delayed
  EXPECT_THAT(Order(queues), ElementsAre("b", "c", "a"));

  Expire(queues, kStart + 80 * kMs);  // b is delayed too, behind a
  EXPECT_THAT(Order(queues), ElementsAre("c", "a", "b"));

  // Delayed requests are still served, and never expire again.
  Expire(queues, kStart + 3'600'000 * kMs);
  EXPECT_THAT(Order(queues), ElementsAre("a", "b", "c"));
  EXPECT_EQ(queues.size(), 3u);
  EXPECT_EQ(queues.NextDeadline(), 0u);
  EXPECT_THAT(Ids(queues.PopFront(3)), ElementsAre("a", "b", "c"));
  EXPECT_TRUE(queues.empty());
}

TEST_F(RequestQueuesTest, EachLevelHasItsOwnPolicy) {
  RequestQueues queues(Batching(R"(
      priority_levels: 2
      priority_queue_policy { key: 1 value { default_timeout_microseconds: 10000 } }
      priority_queue_policy { key: 2 value { default_timeout_microseconds: 10000
                                             timeout_action: DELAY } })"));
  Push(queues, "high", kStart, 1);
  Push(queues, "low", kStart, 2);
  Push(queues, "later", kStart + 5 * kMs, 2);
  const Expired expired = Expire(queues, kStart + 10 * kMs);
  EXPECT_THAT(expired.timed_out, ElementsAre("high"));
  EXPECT_THAT(Order(queues), ElementsAre("later", "low"));
}

TEST_F(RequestQueuesTest, ARequestTimeoutMayShortenTheDefaultWhenOverrideIsAllowed) {
  RequestQueues queues(Batching(R"(
      default_queue_policy { default_timeout_microseconds: 100000
                             allow_timeout_override: true })"));
  EXPECT_EQ(Push(queues, "short", kStart, 0, /*timeout_us=*/20000), kStart + 20 * kMs);
  EXPECT_EQ(Push(queues, "unset", kStart, 0, /*timeout_us=*/0), kStart + 100 * kMs);

  EXPECT_THAT(Expire(queues, kStart + 20 * kMs).timed_out, ElementsAre("short"));
  EXPECT_THAT(Expire(queues, kStart + 100 * kMs).timed_out, ElementsAre("unset"));
  EXPECT_TRUE(queues.empty());
}

// As Triton documents allow_timeout_override: a request "can set a timeout that
// is less than the default timeout value but may not increase the timeout".
TEST_F(RequestQueuesTest, ARequestTimeoutCannotExtendTheDefault) {
  RequestQueues queues(Batching(R"(
      default_queue_policy { default_timeout_microseconds: 100000
                             allow_timeout_override: true })"));
  EXPECT_EQ(Push(queues, "long", kStart, 0, /*timeout_us=*/300000), kStart + 100 * kMs);
  EXPECT_THAT(Expire(queues, kStart + 100 * kMs).timed_out, ElementsAre("long"));
}

TEST_F(RequestQueuesTest, WithoutADefaultTimeoutARequestMaySetOneWhenOverrideIsAllowed) {
  RequestQueues queues(Batching("default_queue_policy { allow_timeout_override: true }"));
  EXPECT_EQ(Push(queues, "a", kStart, 0, /*timeout_us=*/20000), kStart + 20 * kMs);
  EXPECT_EQ(Push(queues, "b", kStart), 0u);
}

TEST_F(RequestQueuesTest, ARequestTimeoutIsIgnoredWhenOverrideIsNotAllowed) {
  RequestQueues queues(Batching("default_queue_policy { default_timeout_microseconds: 100000 }"));
  EXPECT_EQ(Push(queues, "a", kStart, 0, /*timeout_us=*/20000), kStart + 100 * kMs);
  EXPECT_THAT(Expire(queues, kStart + 20 * kMs).timed_out, IsEmpty());
  EXPECT_THAT(Expire(queues, kStart + 100 * kMs).timed_out, ElementsAre("a"));
}

TEST_F(RequestQueuesTest, CancelledRequestsLeaveAtTheNextExpireWhereverTheyWait) {
  RequestQueues queues(Batching(R"(
      priority_levels: 2 default_priority_level: 2
      default_queue_policy { default_timeout_microseconds: 10000 timeout_action: DELAY })"));
  Push(queues, "a", kStart, 2);
  Push(queues, "b", kStart, 1);
  Push(queues, "d", kStart, 2);
  Expire(queues, kStart + 10 * kMs);  // all three delayed now, level 1 first
  Push(queues, "c", kStart + 10 * kMs, 1);
  ASSERT_THAT(Order(queues), ElementsAre("c", "b", "a", "d"));

  // Cancel() only marks a request (it waits in no batcher here); Expire acts.
  const std::vector<const QueuedRequest*> order = queues.InOrder();
  order[0]->request->Cancel();  // c, in its level's queue, deadline ahead
  order[2]->request->Cancel();  // a, among the delayed
  const Expired expired = Expire(queues, kStart + 10 * kMs);
  EXPECT_THAT(expired.cancelled, ElementsAre("c", "a"));
  EXPECT_THAT(expired.timed_out, IsEmpty());
  EXPECT_THAT(Order(queues), ElementsAre("b", "d"));
  EXPECT_EQ(queues.size(), 2u);
}

}  // namespace
}  // namespace inferd

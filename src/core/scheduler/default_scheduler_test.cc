// The default scheduler: one FIFO queue that every instance takes single
// requests from; its counts; and Stop, which fails what waits, refuses what
// comes and lets waiting instances go. No clock is involved; an idle
// instance's wait is seen as its thread blocking (InstanceThread::AwaitBlocked).
#include "core/scheduler/default_scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/test_util/fake_bound_model.h"
#include "core/test_util/instance_thread.h"
#include "core/test_util/request_factory.h"
#include "core/timing/fake_clock.h"

namespace inferd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class DefaultSchedulerTest : public testing::Test {
 protected:
  // Takes the next request on the test thread; the queue must not be empty.
  std::vector<std::string> Take(size_t instance) {
    std::vector<InferenceRequest*> batch;
    EXPECT_TRUE(scheduler_.NextBatch(instance, &batch));
    return Ids(batch);
  }

  FakeClock clock_;
  std::shared_ptr<FakeBoundModel> model_ = std::make_shared<FakeBoundModel>(clock_, "simple", 0);
  RequestFactory requests_{model_};
  // Last: destroyed (stopped) first, while the requests and their log live.
  DefaultScheduler scheduler_;
};

TEST_F(DefaultSchedulerTest, HandsOutRequestsOneAtATimeInArrivalOrderToAnyInstance) {
  ASSERT_TRUE(scheduler_.Enqueue(requests_.Make("a")).ok());
  ASSERT_TRUE(scheduler_.Enqueue(requests_.Make("b")).ok());
  ASSERT_TRUE(scheduler_.Enqueue(requests_.Make("c")).ok());
  EXPECT_THAT(Take(1), ElementsAre("a"));
  EXPECT_THAT(Take(0), ElementsAre("b"));
  EXPECT_THAT(Take(1), ElementsAre("c"));
}

TEST_F(DefaultSchedulerTest, CountsQueuedAndExecutingRequests) {
  EXPECT_EQ(scheduler_.QueuedCount(), 0u);
  EXPECT_EQ(scheduler_.InflightCount(), 0u);
  for (const char* id : {"a", "b", "c"}) ASSERT_TRUE(scheduler_.Enqueue(requests_.Make(id)).ok());
  EXPECT_EQ(scheduler_.QueuedCount(), 3u);
  EXPECT_EQ(scheduler_.InflightCount(), 3u);

  Take(0);
  Take(1);
  EXPECT_EQ(scheduler_.QueuedCount(), 1u);
  EXPECT_EQ(scheduler_.InflightCount(), 3u);  // two execute, one waits

  scheduler_.BatchDone(0, 1);
  EXPECT_EQ(scheduler_.QueuedCount(), 1u);
  EXPECT_EQ(scheduler_.InflightCount(), 2u);

  Take(0);
  scheduler_.BatchDone(1, 1);
  scheduler_.BatchDone(0, 1);
  EXPECT_EQ(scheduler_.QueuedCount(), 0u);
  EXPECT_EQ(scheduler_.InflightCount(), 0u);
}

TEST_F(DefaultSchedulerTest, AnIdleInstanceWakesForTheNextRequest) {
  InstanceThread instance(&scheduler_, &scheduler_, 0);
  ASSERT_TRUE(instance.AwaitBlocked());
  EXPECT_FALSE(instance.returned());

  ASSERT_TRUE(scheduler_.Enqueue(requests_.Make("a")).ok());
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_TRUE(instance.got_work());
  EXPECT_THAT(Ids(instance.batch()), ElementsAre("a"));
  EXPECT_EQ(scheduler_.InflightCount(), 1u);
}

TEST_F(DefaultSchedulerTest, StopFailsQueuedRequestsWithUnavailableNamingTheModel) {
  ASSERT_TRUE(scheduler_.Enqueue(requests_.Make("running")).ok());
  ASSERT_TRUE(scheduler_.Enqueue(requests_.Make("queued1")).ok());
  ASSERT_TRUE(scheduler_.Enqueue(requests_.Make("queued2")).ok());
  Take(0);

  scheduler_.Stop();
  scheduler_.Stop();  // idempotent: nobody is answered twice

  const std::vector<LoggedResponse> responses = requests_.log().responses();
  ASSERT_EQ(responses.size(), 2u);
  for (size_t i = 0; i < responses.size(); ++i) {
    EXPECT_EQ(responses[i].request_id, "queued" + std::to_string(i + 1));
    EXPECT_TRUE(responses[i].final());
    EXPECT_EQ(responses[i].status.code(), Status::Code::kUnavailable);
    EXPECT_THAT(responses[i].status.message(), HasSubstr("model 'simple'"));
  }
  EXPECT_THAT(requests_.log().released(), ElementsAre("queued1", "queued2"));
  EXPECT_EQ(model_->released(), 2u);
  EXPECT_EQ(model_->stats().fail.count.load(), 2u);
  // The executing request is its instance's business, not Stop's.
  EXPECT_EQ(scheduler_.QueuedCount(), 0u);
  EXPECT_EQ(scheduler_.InflightCount(), 1u);
}

TEST_F(DefaultSchedulerTest, RefusesNewRequestsOnceStopped) {
  scheduler_.Stop();
  InferenceRequest* late = requests_.Make("late");
  const Status status = scheduler_.Enqueue(late);
  EXPECT_EQ(status.code(), Status::Code::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr("model 'simple'"));
  // The caller keeps a refused request: nothing answered or released it.
  EXPECT_TRUE(requests_.log().responses().empty());
  EXPECT_TRUE(requests_.log().released().empty());
  EXPECT_EQ(scheduler_.InflightCount(), 0u);
}

TEST_F(DefaultSchedulerTest, StopWakesAWaitingInstanceWithNoWork) {
  InstanceThread instance(&scheduler_, &scheduler_, 0);
  ASSERT_TRUE(instance.AwaitBlocked());

  scheduler_.Stop();
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_FALSE(instance.got_work());
  EXPECT_TRUE(instance.batch().empty());
}

TEST_F(DefaultSchedulerTest, NextBatchAfterStopReturnsFalseAtOnce) {
  ASSERT_TRUE(scheduler_.Enqueue(requests_.Make("a")).ok());
  scheduler_.Stop();
  std::vector<InferenceRequest*> batch;
  EXPECT_FALSE(scheduler_.NextBatch(0, &batch));
  EXPECT_TRUE(batch.empty());
}

}  // namespace
}  // namespace inferd

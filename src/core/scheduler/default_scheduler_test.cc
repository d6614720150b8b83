// The default scheduler: one FIFO queue that every instance takes single
// requests from; its counts; and Stop, which fails what waits, refuses what
// comes and lets waiting instances go. Then execution on callers' threads
// (caller_execution.h): when it happens and when not, in simulated time (the
// FakeClock advances by each execution's length). An idle instance's wait is
// seen as its thread blocking (InstanceThread::AwaitBlocked).
#include "core/scheduler/default_scheduler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
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
  DefaultScheduler scheduler_{2};
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

// Plays a model's instances for execution on callers' threads: records which
// instance ran which requests on which thread, advances the clock by the
// execution's length, and can hold an execution until the test lets it end.
class FakeCallerExecutor : public CallerExecutor {
 public:
  struct Execution {
    size_t instance;
    std::vector<std::string> ids;
    std::thread::id thread;
  };

  FakeCallerExecutor(FakeClock* clock, std::vector<bool> allowed)
      : clock_(clock), allowed_(std::move(allowed)) {}

  bool MayExecuteOnCaller(size_t instance) const override { return allowed_[instance]; }
  void ExecuteOnCaller(size_t instance, std::vector<InferenceRequest*>& batch) override
      EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    executions_.push_back({instance, Ids(batch), std::this_thread::get_id()});
    changed_.SignalAll();
    while (holding_) changed_.Wait(&mu_);
    clock_->Advance(length_);
  }

  void SetLength(std::chrono::nanoseconds length) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    length_ = length;
  }
  void Hold() EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    holding_ = true;
  }
  void Release() EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    holding_ = false;
    changed_.SignalAll();
  }
  // Waits (real time, bounded) until `count` executions have begun.
  bool AwaitExecutions(size_t count) EXCLUDES(mu_) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    MutexLock lock(&mu_);
    while (executions_.size() < count) {
      if (!changed_.WaitUntil(&mu_, give_up)) return executions_.size() >= count;
    }
    return true;
  }
  std::vector<Execution> executions() EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return executions_;
  }

 private:
  FakeClock* const clock_;
  const std::vector<bool> allowed_;
  Mutex mu_;
  CondVar changed_;
  std::vector<Execution> executions_ GUARDED_BY(mu_);
  std::chrono::nanoseconds length_ GUARDED_BY(mu_) = std::chrono::microseconds(10);
  bool holding_ GUARDED_BY(mu_) = false;
};

class CallerExecutionTest : public testing::Test {
 protected:
  // A request that lets the submitting thread execute it.
  InferenceRequest* MakeForCaller(const std::string& id) {
    InferenceRequest* request = requests_.Make(id);
    request->may_execute_on_caller = true;
    return request;
  }
  // `count` executions of `length` on `instance`'s thread (played here), as
  // `scheduler` sees them before it trusts callers with the model.
  void ExecuteOnInstanceThread(DefaultScheduler& scheduler, size_t instance, size_t count,
                               std::chrono::nanoseconds length) {
    for (size_t i = 0; i < count; ++i) {
      ASSERT_TRUE(scheduler.Enqueue(requests_.Make("learn" + std::to_string(i))).ok());
      std::vector<InferenceRequest*> batch;
      ASSERT_TRUE(scheduler.NextBatch(instance, &batch));
      clock_.Advance(length);
      scheduler.BatchDone(instance, batch.size());
    }
  }
  void ExecuteOnInstanceThread(size_t count, std::chrono::nanoseconds length) {
    ExecuteOnInstanceThread(scheduler_, 0, count, length);
  }

  FakeClock clock_;
  std::shared_ptr<FakeBoundModel> model_ = std::make_shared<FakeBoundModel>(clock_, "simple", 0);
  RequestFactory requests_{model_};
  FakeCallerExecutor executor_{&clock_, {true, true}};
  DefaultScheduler scheduler_{2, &clock_, &executor_};
};

TEST_F(CallerExecutionTest, AShortModelRunsOnTheCallersThreadWhenAnInstanceIsIdle) {
  ExecuteOnInstanceThread(RecentExecutionTime::kSamplesBeforeTrust, std::chrono::microseconds(20));
  InstanceThread instance(&scheduler_, &scheduler_, 0);
  ASSERT_TRUE(instance.AwaitBlocked());

  ASSERT_TRUE(scheduler_.Enqueue(MakeForCaller("a")).ok());
  const auto executions = executor_.executions();
  ASSERT_EQ(executions.size(), 1u);
  EXPECT_EQ(executions[0].instance, 0u);
  EXPECT_THAT(executions[0].ids, ElementsAre("a"));
  EXPECT_EQ(executions[0].thread, std::this_thread::get_id());
  // The instance's own thread was never woken for it, and nothing is in flight.
  EXPECT_FALSE(instance.returned());
  EXPECT_EQ(scheduler_.QueuedCount(), 0u);
  EXPECT_EQ(scheduler_.InflightCount(), 0u);
}

TEST_F(CallerExecutionTest, ARequestThatDoesNotAllowItWaitsForAnInstanceThread) {
  ExecuteOnInstanceThread(RecentExecutionTime::kSamplesBeforeTrust, std::chrono::microseconds(20));
  InstanceThread instance(&scheduler_, &scheduler_, 0);
  ASSERT_TRUE(instance.AwaitBlocked());

  ASSERT_TRUE(scheduler_.Enqueue(requests_.Make("a")).ok());
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_THAT(Ids(instance.batch()), ElementsAre("a"));
  EXPECT_TRUE(executor_.executions().empty());
}

TEST_F(CallerExecutionTest, CallersWaitUntilTheModelHasShownShortExecutions) {
  ExecuteOnInstanceThread(RecentExecutionTime::kSamplesBeforeTrust - 1,
                          std::chrono::microseconds(20));
  {
    InstanceThread instance(&scheduler_, &scheduler_, 0);
    ASSERT_TRUE(instance.AwaitBlocked());
    ASSERT_TRUE(scheduler_.Enqueue(MakeForCaller("early")).ok());
    ASSERT_TRUE(instance.AwaitReturn());
    EXPECT_THAT(Ids(instance.batch()), ElementsAre("early"));
    clock_.Advance(std::chrono::microseconds(20));
    scheduler_.BatchDone(0, 1);  // the last sample the scheduler waited for
  }
  InstanceThread instance(&scheduler_, &scheduler_, 0);
  ASSERT_TRUE(instance.AwaitBlocked());
  ASSERT_TRUE(scheduler_.Enqueue(MakeForCaller("later")).ok());
  ASSERT_EQ(executor_.executions().size(), 1u);
  EXPECT_THAT(executor_.executions()[0].ids, ElementsAre("later"));
  EXPECT_FALSE(instance.returned());
}

TEST_F(CallerExecutionTest, ALongModelNeverRunsOnCallers) {
  ExecuteOnInstanceThread(RecentExecutionTime::kSamplesBeforeTrust,
                          std::chrono::nanoseconds(RecentExecutionTime::kShortNs * 2));
  InstanceThread instance(&scheduler_, &scheduler_, 0);
  ASSERT_TRUE(instance.AwaitBlocked());

  ASSERT_TRUE(scheduler_.Enqueue(MakeForCaller("a")).ok());
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_THAT(Ids(instance.batch()), ElementsAre("a"));
  EXPECT_TRUE(executor_.executions().empty());
}

TEST_F(CallerExecutionTest, AModelThatTurnsLongStopsRunningOnCallers) {
  ExecuteOnInstanceThread(RecentExecutionTime::kSamplesBeforeTrust, std::chrono::microseconds(20));
  InstanceThread instance(&scheduler_, &scheduler_, 0);
  ASSERT_TRUE(instance.AwaitBlocked());
  executor_.SetLength(std::chrono::milliseconds(2));
  ASSERT_TRUE(scheduler_.Enqueue(MakeForCaller("slow")).ok());
  ASSERT_EQ(executor_.executions().size(), 1u);
  EXPECT_GT(scheduler_.recent_execution_time().average_ns(), RecentExecutionTime::kShortNs);

  ASSERT_TRUE(scheduler_.Enqueue(MakeForCaller("next")).ok());
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_THAT(Ids(instance.batch()), ElementsAre("next"));
  EXPECT_EQ(executor_.executions().size(), 1u);
}

TEST_F(CallerExecutionTest, OnlyInstancesWhoseBackendAllowsItRunOnCallers) {
  FakeCallerExecutor executor(&clock_, {false, true});
  DefaultScheduler scheduler(2, &clock_, &executor);
  ExecuteOnInstanceThread(scheduler, 1, RecentExecutionTime::kSamplesBeforeTrust,
                          std::chrono::microseconds(20));
  InstanceThread first(&scheduler, &scheduler, 0);
  ASSERT_TRUE(first.AwaitBlocked());
  InstanceThread second(&scheduler, &scheduler, 1);
  ASSERT_TRUE(second.AwaitBlocked());

  ASSERT_TRUE(scheduler.Enqueue(MakeForCaller("a")).ok());
  ASSERT_EQ(executor.executions().size(), 1u);
  EXPECT_EQ(executor.executions()[0].instance, 1u);
  EXPECT_FALSE(first.returned());
  EXPECT_FALSE(second.returned());
}

TEST_F(CallerExecutionTest, WorkQueuedBehindAClaimedInstanceGoesToItWhenTheCallerIsDone) {
  FakeCallerExecutor executor(&clock_, {true});
  DefaultScheduler scheduler(1, &clock_, &executor);
  ExecuteOnInstanceThread(scheduler, 0, RecentExecutionTime::kSamplesBeforeTrust,
                          std::chrono::microseconds(20));
  InstanceThread instance(&scheduler, &scheduler, 0);
  ASSERT_TRUE(instance.AwaitBlocked());
  executor.Hold();
  InferenceRequest* first = MakeForCaller("first");
  std::thread caller([&] { EXPECT_TRUE(scheduler.Enqueue(first).ok()); });
  ASSERT_TRUE(executor.AwaitExecutions(1));

  // The only instance is busy for a caller: the next request waits, even one
  // that allows a caller, and the instance's thread stays away from it.
  ASSERT_TRUE(scheduler.Enqueue(MakeForCaller("second")).ok());
  EXPECT_EQ(scheduler.QueuedCount(), 1u);
  EXPECT_EQ(scheduler.InflightCount(), 2u);
  EXPECT_FALSE(instance.returned());

  executor.Release();
  caller.join();
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_THAT(Ids(instance.batch()), ElementsAre("second"));
  EXPECT_EQ(executor.executions().size(), 1u);
}

TEST_F(CallerExecutionTest, StopWaitsForAnExecutionOnACallersThread) {
  ExecuteOnInstanceThread(RecentExecutionTime::kSamplesBeforeTrust, std::chrono::microseconds(20));
  InstanceThread instance(&scheduler_, &scheduler_, 0);
  ASSERT_TRUE(instance.AwaitBlocked());
  executor_.Hold();
  InferenceRequest* request = MakeForCaller("a");
  std::thread caller([&] { EXPECT_TRUE(scheduler_.Enqueue(request).ok()); });
  ASSERT_TRUE(executor_.AwaitExecutions(1));

  std::atomic<bool> stopped{false};
  std::thread stopper([&] {
    scheduler_.Stop();
    stopped = true;
  });
  // Stop let the instance's thread go, and still waits for the caller: the
  // model must not finalize an instance something executes on.
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_FALSE(instance.got_work());
  EXPECT_FALSE(stopped);
  executor_.Release();
  caller.join();
  stopper.join();
  EXPECT_TRUE(stopped);
}

}  // namespace
}  // namespace inferd

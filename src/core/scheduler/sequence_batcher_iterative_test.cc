// Iterative sequences in simulated time (sequence_batching { iterative_sequence:
// true }): requests without an id get a sequence of their own, a backend's
// release with RESCHEDULE runs the same request again in its slot (its inputs
// untouched, its controls anew), and the sequence ends, freeing its slot,
// when the request is released for good. Rescheduling elsewhere is refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "core/infer/inference_request.h"
#include "core/scheduler/sequence_batcher.h"
#include "core/test_util/sequence_batcher_fixture.h"

namespace inferd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using std::chrono::milliseconds;

constexpr uint32_t kReschedule = INFERD_REQUEST_RELEASE_RESCHEDULE;

class IterativeSequenceTest : public SequenceBatcherTest {
 protected:
  // The backend's end of an execution: RESCHEDULE, then the instance is done.
  void RescheduleAndFinish(const std::vector<InferenceRequest*>& batch) {
    for (InferenceRequest* request : batch) {
      ASSERT_TRUE(request->ReleaseFromBackend(kReschedule).ok());
    }
    batcher_->BatchDone(0, batch.size());
  }
};

TEST_F(IterativeSequenceTest, ARequestWithoutAnIdStartsASequenceOfItsOwn) {
  Start("iterative_sequence: true direct { }");
  ASSERT_TRUE(Send("a", 0).ok());
  ASSERT_TRUE(Send("b", 0).ok());
  std::vector<InferenceRequest*> batch = TakeDueBatch();
  ASSERT_EQ(batch.size(), 2u);
  const Seen a = Controls(batch[0]);
  const Seen b = Controls(batch[1]);
  EXPECT_EQ(a.start, 1.0f);
  EXPECT_EQ(a.end, 0) << "an iterative sequence's end is its release, never a flag";
  EXPECT_NE(a.corrid, 0u);
  EXPECT_NE(a.corrid, b.corrid) << "each request is a sequence of its own";
  EXPECT_THAT(Complete(*batcher_, batch), ElementsAre("a", "b"));
  EXPECT_EQ(batcher_->InflightCount(), 0u);
}

TEST_F(IterativeSequenceTest, ARescheduledRequestRunsAgainInItsSlotAsItIs) {
  Start("iterative_sequence: true direct { }");
  ASSERT_TRUE(Send("a", 0).ok());
  std::vector<InferenceRequest*> first = TakeDueBatch();
  ASSERT_EQ(first.size(), 1u);
  InferenceRequest* a = first[0];
  const float client_data[1] = {3.0f};  // the client's memory, borrowed
  ASSERT_TRUE(a->AppendInputData("INPUT0", {client_data, sizeof(client_data)}).ok());
  const size_t input_count = a->inputs().size();
  const uint64_t corrid = Controls(a).corrid;
  clock_.Advance(milliseconds(5));
  RescheduleAndFinish(first);
  EXPECT_EQ(a->requeue_ns, clock_.NowNs()) << "its queue time counts from the reschedule";
  EXPECT_EQ(batcher_->QueuedCount(), 1u);

  std::vector<InferenceRequest*> again = TakeDueBatch();
  ASSERT_THAT(again, ElementsAre(a)) << "the same request, not a copy";
  ASSERT_EQ(a->FindInput("INPUT0")->buffers.size(), 1u);
  EXPECT_EQ(a->FindInput("INPUT0")->buffers[0].base, client_data) << "inputs are not copied";
  EXPECT_EQ(a->inputs().size(), input_count) << "controls replaced, not added twice";
  const Seen seen = Controls(a);
  EXPECT_EQ(seen.start, 0.0f) << "START only on the first execution";
  EXPECT_EQ(seen.corrid, corrid);
  EXPECT_TRUE(requests_->log().responses().empty()) << "nothing answered the client yet";
  EXPECT_THAT(Complete(*batcher_, again), ElementsAre("a"));
  EXPECT_THAT(requests_->log().released(), ElementsAre("a"));
  EXPECT_EQ(batcher_->InflightCount(), 0u);
}

TEST_F(IterativeSequenceTest, EachExecutionCountsAsAnInferenceAsInTriton) {
  Start("iterative_sequence: true direct { }");
  ASSERT_TRUE(Send("a", 0).ok());
  RescheduleAndFinish(TakeDueBatch());
  RescheduleAndFinish(TakeDueBatch());
  EXPECT_EQ(model_->stats().success.count.load(), 2u);
  RunDueBatch();
  EXPECT_EQ(model_->stats().success.count.load(), 3u) << "two reschedules and the final response";
  EXPECT_EQ(model_->stats().fail.count.load(), 0u);
}

TEST_F(IterativeSequenceTest, TheSlotGoesToTheBacklogWhenTheRequestIsReleased) {
  Start("iterative_sequence: true direct { }", /*max_batch_size=*/0);  // one slot
  ASSERT_TRUE(Send("a", 0).ok());
  ASSERT_TRUE(Send("b", 0).ok());
  for (int i = 0; i < 3; ++i) {
    std::vector<InferenceRequest*> batch = TakeDueBatch();
    ASSERT_EQ(Ids(batch), std::vector<std::string>{"a"}) << "b waits for a's slot";
    RescheduleAndFinish(batch);
  }
  EXPECT_THAT(RunDueBatch(), ElementsAre("a"));
  EXPECT_THAT(RunDueBatch(), ElementsAre("b"));
  EXPECT_EQ(batcher_->InflightCount(), 0u);
}

TEST_F(IterativeSequenceTest, ARequestHeldPastItsBatchIsNeverIdleAndMayStillReschedule) {
  // A decoupled backend may release the request after execute returned.
  Start("iterative_sequence: true direct { }", /*max_batch_size=*/0);
  ASSERT_TRUE(Send("a", 0).ok());
  ASSERT_TRUE(Send("b", 0).ok());
  std::vector<InferenceRequest*> batch = TakeDueBatch();
  ASSERT_EQ(batch.size(), 1u);
  batcher_->BatchDone(0, 1);
  {
    InstanceThread instance(batcher_.get(), batcher_.get(), 0);
    clock_.Advance(milliseconds(5000));  // far past max_sequence_idle_microseconds
    EXPECT_FALSE(instance.AwaitReturn(std::chrono::seconds(0))) << "no idle END, b still waits";
    ASSERT_TRUE(batch[0]->ReleaseFromBackend(kReschedule).ok());
    ASSERT_TRUE(instance.AwaitReturn());
    EXPECT_THAT(Ids(instance.batch()), ElementsAre("a"));
    Complete(*batcher_, instance.batch());
  }
  EXPECT_THAT(RunDueBatch(), ElementsAre("b"));
}

TEST_F(IterativeSequenceTest, AClientsSequenceIdEndsWithItsRequest) {
  Start("iterative_sequence: true direct { }");
  ASSERT_TRUE(Send("a1", 5, kStart).ok());
  std::vector<InferenceRequest*> batch = TakeDueBatch();
  EXPECT_EQ(Controls(batch[0]).corrid, 5u);
  RescheduleAndFinish(batch);
  EXPECT_THAT(RunDueBatch(), ElementsAre("a1"));
  const Status late = Send("a2", 5);
  EXPECT_EQ(late.code(), Status::Code::kInvalidArg);
  EXPECT_THAT(late.message(), HasSubstr("sequence 5 is not active"));
}

TEST_F(IterativeSequenceTest, RescheduleIsRefusedWithoutIterativeSequence) {
  Start("direct { }");
  ASSERT_TRUE(Send("a", 7, kStart | kEnd).ok());
  std::vector<InferenceRequest*> batch = TakeDueBatch();
  const Status refused = batch[0]->ReleaseFromBackend(kReschedule);
  EXPECT_EQ(refused.code(), Status::Code::kInvalidArg);
  EXPECT_THAT(refused.message(),
              HasSubstr("Request is released with TRITONSERVER_REQUEST_RELEASE_RESCHEDULE"));
  EXPECT_THAT(refused.message(), HasSubstr("iterative_sequence: true"));
  EXPECT_TRUE(requests_->log().released().empty()) << "the backend still owns it";
  EXPECT_THAT(Complete(*batcher_, batch), ElementsAre("a"));
  EXPECT_EQ(Send("b", 0).code(), Status::Code::kInvalidArg) << "an id is required here";
  EXPECT_EQ(batch[0]->ReleaseFromBackend(7).code(), Status::Code::kInvalidArg)
      << "unknown release flags";
}

TEST_F(IterativeSequenceTest, StopAnswersRescheduledRequestsAndRefusesMore) {
  Start("iterative_sequence: true direct { }");
  ASSERT_TRUE(Send("a", 0).ok());
  ASSERT_TRUE(Send("b", 0).ok());
  std::vector<InferenceRequest*> batch = TakeDueBatch();
  ASSERT_EQ(batch.size(), 2u);
  ASSERT_TRUE(batch[0]->ReleaseFromBackend(kReschedule).ok());
  batcher_->Stop();
  const Status late = batch[1]->ReleaseFromBackend(kReschedule);
  EXPECT_EQ(late.code(), Status::Code::kUnavailable);
  CompleteBatch({batch[1]});
  batcher_->BatchDone(0, 2);
  EXPECT_THAT(requests_->log().released(), ElementsAre("a", "b"));
  EXPECT_EQ(requests_->log().responses().at(0).status.code(), Status::Code::kUnavailable);
}

}  // namespace
}  // namespace inferd

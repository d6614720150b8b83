// The sequence batcher in simulated time: routing to one slot per sequence,
// the control inputs, padding rows, order within a sequence, the backlog,
// idle release, both strategies, errors, Stop.
//
// An instance is played by an InstanceThread (one NextBatch on its own
// thread); FakeClock::AwaitWaiters tells when it went back to sleep with a
// deadline, so the test advances the clock only then.
#include "core/scheduler/sequence_batcher.h"

#include <google/protobuf/text_format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/infer/inference_request.h"
#include "core/test_util/instance_thread.h"
#include "core/test_util/sequence_batcher_fixture.h"

namespace inferd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using std::chrono::milliseconds;

TEST_F(SequenceBatcherTest, EachSequenceKeepsItsSlotAndSeesItsControls) {
  Start("direct { }");
  ASSERT_TRUE(Send("a1", 7, kStart).ok());
  ASSERT_TRUE(Send("b1", 9, kStart).ok());
  std::vector<InferenceRequest*> batch = TakeDueBatch();
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[0]->id, "a1");  // slot 0
  EXPECT_EQ(batch[1]->id, "b1");  // slot 1
  const Seen a = Controls(batch[0]);
  EXPECT_EQ(a.start, 1.0f);
  EXPECT_EQ(a.end, 0);
  EXPECT_TRUE(a.ready);
  EXPECT_EQ(a.corrid, 7u);
  EXPECT_EQ(batch[0]->FindInput("START")->shape, (std::vector<int64_t>{1, 1}));
  Complete(*batcher_, batch);

  // b's next request alone: slot 0 is padded with a row that is not ready.
  ASSERT_TRUE(Send("b2", 9, kEnd).ok());
  batch = TakeDueBatch();
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[1]->id, "b2");
  EXPECT_FALSE(Controls(batch[0]).ready) << "padding";
  EXPECT_EQ(batch[0]->FindInput("INPUT0")->byte_size, batch[1]->FindInput("INPUT0")->byte_size);
  const Seen b = Controls(batch[1]);
  EXPECT_EQ(b.start, 0.0f);
  EXPECT_EQ(b.end, 1);
  EXPECT_EQ(b.corrid, 9u);
  Complete(*batcher_, batch);
  EXPECT_EQ(model_->stats().inference_count.load(), 0u) << "the fake instance records nothing";
}

TEST_F(SequenceBatcherTest, ASequencesRequestsRunOneAtATimeInOrder) {
  Start("direct { }");
  ASSERT_TRUE(Send("a1", 7, kStart).ok());
  ASSERT_TRUE(Send("a2", 7).ok());
  ASSERT_TRUE(Send("a3", 7, kEnd).ok());
  EXPECT_THAT(RunDueBatch(), ElementsAre("a1"));
  EXPECT_THAT(RunDueBatch(), ElementsAre("a2"));
  EXPECT_THAT(RunDueBatch(), ElementsAre("a3"));
  EXPECT_EQ(batcher_->InflightCount(), 0u);
}

TEST_F(SequenceBatcherTest, SequencesBeyondTheSlotsWaitInStartOrder) {
  Start("direct { }", /*max_batch_size=*/0);  // one slot
  ASSERT_TRUE(Send("a1", 1, kStart).ok());
  ASSERT_TRUE(Send("b1", 2, kStart).ok());
  ASSERT_TRUE(Send("c1", 3, kStart | kEnd).ok());
  EXPECT_THAT(RunDueBatch(), ElementsAre("a1"));
  ASSERT_TRUE(Send("a2", 1, kEnd).ok());
  EXPECT_THAT(RunDueBatch(), ElementsAre("a2")) << "b waits for a's slot";
  EXPECT_THAT(RunDueBatch(), ElementsAre("b1"));
  ASSERT_TRUE(Send("b2", 2, kEnd).ok());
  EXPECT_THAT(RunDueBatch(), ElementsAre("b2"));
  EXPECT_THAT(RunDueBatch(), ElementsAre("c1"));
  EXPECT_EQ(batcher_->InflightCount(), 0u);
}

TEST_F(SequenceBatcherTest, AnIdleSequenceEndsAndFreesItsSlot) {
  Start("direct { }", /*max_batch_size=*/0);
  ASSERT_TRUE(Send("a1", 1, kStart).ok());
  ASSERT_TRUE(Send("b1", 2, kStart).ok());
  EXPECT_THAT(RunDueBatch(), ElementsAre("a1"));

  InstanceThread instance(batcher_.get(), batcher_.get(), 0);
  ASSERT_TRUE(clock_.AwaitWaiters(1));  // a holds the slot, idle deadline pending
  EXPECT_FALSE(instance.returned());
  clock_.Advance(milliseconds(999));
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  EXPECT_FALSE(instance.returned());
  clock_.Advance(milliseconds(1));
  ASSERT_TRUE(instance.AwaitReturn());
  std::vector<InferenceRequest*> end = instance.batch();
  ASSERT_EQ(end.size(), 1u);
  const Seen seen = Controls(end[0]);
  EXPECT_EQ(seen.end, 1) << "the backend is told the sequence ended";
  EXPECT_TRUE(seen.ready);
  EXPECT_EQ(seen.corrid, 1u);
  ASSERT_NE(end[0]->FindInput("INPUT0"), nullptr) << "inputs shaped like the last request";
  EXPECT_EQ(end[0]->FindInput("INPUT0")->shape, (std::vector<int64_t>{1}));
  Complete(*batcher_, end);

  const Status late = Send("a2", 1);
  EXPECT_EQ(late.code(), Status::Code::kInvalidArg);
  EXPECT_THAT(late.message(), HasSubstr("sequence 1 is not active"));
  EXPECT_THAT(late.message(), HasSubstr("max_sequence_idle_microseconds"));
  EXPECT_THAT(RunDueBatch(), ElementsAre("b1")) << "the freed slot went to the backlog";
}

TEST_F(SequenceBatcherTest, ClearErrorsForRequestsOutsideASequence) {
  Start("direct { }");
  Status status = Send("x", 0, kStart);
  EXPECT_EQ(status.code(), Status::Code::kInvalidArg);
  EXPECT_THAT(status.message(), HasSubstr("must carry a sequence_id"));
  EXPECT_THAT(status.message(), HasSubstr("'seq'"));

  status = Send("y", 5);
  EXPECT_THAT(status.message(), HasSubstr("sequence 5 is not active"));

  ASSERT_TRUE(Send("z1", 6, kStart | kEnd).ok());
  status = Send("z2", 6);
  EXPECT_THAT(status.message(), HasSubstr("already got sequence_end"));
  EXPECT_TRUE(Send("z3", 6, kStart).ok()) << "a new sequence may reuse the id";
  EXPECT_THAT(RunDueBatch(), ElementsAre("z1"));
  EXPECT_THAT(RunDueBatch(), ElementsAre("z3")) << "same slot, after the END";
}

TEST_F(SequenceBatcherTest, StringIdsAreSequencesToo) {
  Start("direct { }");
  InferenceRequest* request = requests_->Make("s1", 1, {1});
  request->correlation_id_string = "session-a";
  request->flags = kStart;
  ASSERT_TRUE(batcher_->Enqueue(request).ok());
  InferenceRequest* next = requests_->Make("s2", 1, {1});
  next->correlation_id_string = "session-a";
  ASSERT_TRUE(batcher_->Enqueue(next).ok());
  EXPECT_THAT(RunDueBatch(), ElementsAre("s1"));
  EXPECT_THAT(RunDueBatch(), ElementsAre("s2"));
}

TEST_F(SequenceBatcherTest, DirectWaitsTheQueueDelayForMoreSlots) {
  Start("direct { max_queue_delay_microseconds: 10000 }", /*max_batch_size=*/2);
  ASSERT_TRUE(Send("a1", 1, kStart).ok());
  InstanceThread instance(batcher_.get(), batcher_.get(), 0);
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  EXPECT_FALSE(instance.returned());
  ASSERT_TRUE(Send("b1", 2, kStart).ok());  // every slot ready: goes at once
  ASSERT_TRUE(instance.AwaitReturn());
  Complete(*batcher_, instance.batch());
  EXPECT_EQ(instance.batch().size(), 2u);

  ASSERT_TRUE(Send("a2", 1).ok());
  InstanceThread waiting(batcher_.get(), batcher_.get(), 0);
  ASSERT_TRUE(clock_.AwaitWaiters(1));
  EXPECT_FALSE(waiting.returned());
  clock_.Advance(milliseconds(10));
  ASSERT_TRUE(waiting.AwaitReturn());
  std::vector<InferenceRequest*> batch = waiting.batch();
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0]->id, "a2");
  Complete(*batcher_, batch);
}

TEST_F(SequenceBatcherTest, OldestBatchesTheOldestRequestsOfDifferentSequences) {
  Start("oldest { max_candidate_sequences: 4 }", /*max_batch_size=*/2);
  ASSERT_TRUE(Send("a1", 1, kStart).ok());
  clock_.Advance(milliseconds(1));
  ASSERT_TRUE(Send("a2", 1).ok());
  ASSERT_TRUE(Send("b1", 2, kStart).ok());
  clock_.Advance(milliseconds(1));
  ASSERT_TRUE(Send("c1", 3, kStart).ok());
  EXPECT_THAT(RunDueBatch(), ElementsAre("a1", "b1")) << "one request per sequence, oldest first";
  EXPECT_THAT(RunDueBatch(), ElementsAre("a2", "c1"));
}

TEST_F(SequenceBatcherTest, DirectSpreadsSequencesOverInstances) {
  Start("direct { }", /*max_batch_size=*/0, /*instances=*/2);
  ASSERT_TRUE(Send("a1", 1, kStart).ok());
  ASSERT_TRUE(Send("b1", 2, kStart).ok());
  EXPECT_THAT(RunDueBatch(0), ElementsAre("a1"));
  EXPECT_THAT(RunDueBatch(1), ElementsAre("b1"));
  ASSERT_TRUE(Send("b2", 2).ok());
  EXPECT_THAT(RunDueBatch(1), ElementsAre("b2")) << "b stays on instance 1";
}

// What a stateful backend does: reads STATE_IN, writes STATE_IN + 1 to
// STATE_OUT and answers; returns the state it read.
int32_t StepState(InferenceRequest* request) {
  const int32_t state = Read<int32_t>(request, "STATE_IN");
  auto response = std::make_unique<InferenceResponse>(*request);
  const int64_t shape[] = {1, 1};
  StatusOr<OutputTensor*> out = response->AddOutput("STATE_OUT", INFERD_TYPE_INT32, shape, 2);
  EXPECT_TRUE(out.ok());
  INFERD_MemoryType type = INFERD_MEMORY_CPU;
  int64_t type_id = 0;
  EXPECT_TRUE(response->AllocateBuffer(*out, 4, &type, &type_id).ok());
  const int32_t next = state + 1;
  std::memcpy((*out)->buffer, &next, 4);
  EXPECT_TRUE(InferenceResponse::Send(std::move(response), INFERD_RESPONSE_COMPLETE_FINAL,
                                      Status::Ok())
                  .ok());
  request->Release();
  return state;
}

TEST_F(SequenceBatcherTest, ImplicitStateCarriesFromRequestToRequest) {
  Start(R"(direct { } state [ { input_name: "STATE_IN" output_name: "STATE_OUT"
           data_type: TYPE_INT32 dims: [ 1 ]
           initial_state [ { data_type: TYPE_INT32 dims: [ 1 ] zero_data: true name: "z" } ] } ])");
  ASSERT_TRUE(Send("a1", 1, kStart).ok());
  ASSERT_TRUE(Send("a2", 1).ok());
  ASSERT_TRUE(Send("b1", 2, kStart).ok());
  std::vector<InferenceRequest*> batch = TakeDueBatch();
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[0]->FindInput("STATE_IN")->shape, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(StepState(batch[0]), 0) << "a starts from zero";
  EXPECT_EQ(StepState(batch[1]), 0) << "b starts from zero";
  batcher_->BatchDone(0, batch.size());

  batch = TakeDueBatch();
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0]->id, "a2");
  EXPECT_EQ(StepState(batch[0]), 1) << "what a's first request wrote";
  batcher_->BatchDone(0, batch.size());

  ASSERT_TRUE(Send("a3", 1, kStart).ok());
  batch = TakeDueBatch();
  EXPECT_EQ(StepState(batch[0]), 0) << "a START resets the state";
  batcher_->BatchDone(0, batch.size());
  for (const LoggedResponse& response : requests_->log().responses()) {
    EXPECT_TRUE(response.status.ok()) << response.status.ToString();
  }
}

TEST_F(SequenceBatcherTest, StopFailsWhatIsQueued) {
  Start("direct { }", /*max_batch_size=*/0);
  ASSERT_TRUE(Send("a1", 1, kStart).ok());
  ASSERT_TRUE(Send("b1", 2, kStart).ok());
  batcher_->Stop();
  const std::vector<LoggedResponse> responses = requests_->log().responses();
  ASSERT_EQ(responses.size(), 2u);
  EXPECT_EQ(responses[0].status.code(), Status::Code::kUnavailable);
  EXPECT_EQ(Send("c1", 3, kStart).code(), Status::Code::kUnavailable);
  InstanceThread instance(batcher_.get(), batcher_.get(), 0);
  ASSERT_TRUE(instance.AwaitReturn());
  EXPECT_FALSE(instance.got_work());
}

}  // namespace
}  // namespace inferd

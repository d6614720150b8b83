#include "core/scheduler/ensemble_scheduler.h"

#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <set>

#include "core/infer/inference_request.h"
#include "core/infer/inference_response.h"
#include "core/infer/request_submitter.h"
#include "core/infer/response_allocator.h"
#include "core/stats/compute_tally.h"
#include "core/test_util/fake_bound_model.h"
#include "core/timing/fake_clock.h"

namespace inferd {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

constexpr int64_t kWidth = 4;

// Plays the server: binds each step request to a fake model of its name and
// holds it until the test completes it, so the test decides the order in
// which steps finish. Completing a step copies each input to the output of
// the same position (OUTPUT0 from the first input, ...), adding `add`.
class FakeSubmitter final : public RequestSubmitter {
 public:
  explicit FakeSubmitter(const Clock& clock) : clock_(clock) {}

  Status Submit(InferenceRequest* request) override {
    if (refuse_.contains(request->model_name())) {
      return Status::NotFound("model '" + request->model_name() + "' is not loaded");
    }
    auto& model = models_[request->model_name()];
    if (!model) model = std::make_shared<FakeBoundModel>(clock_, request->model_name());
    request->outputs = std::make_shared<std::vector<std::string>>(request->requested_outputs);
    request->Bind(model);
    held_.push_back(request);
    return Status::Ok();
  }

  // Model names of the requests submitted and not yet completed, in order.
  std::vector<std::string> Held() const {
    std::vector<std::string> names;
    for (const InferenceRequest* request : held_) names.push_back(request->model_name());
    return names;
  }

  void Complete(const std::string& model, float add = 0, Status error = Status::Ok()) {
    auto found = std::find_if(held_.begin(), held_.end(),
                              [&](InferenceRequest* r) { return r->model_name() == model; });
    ASSERT_NE(found, held_.end()) << model << " was not submitted";
    InferenceRequest* request = *found;
    held_.erase(found);
    auto response = std::make_unique<InferenceResponse>(*request);
    for (size_t i = 0; i < request->inputs().size() && error.ok(); ++i) {
      const InputTensor& input = request->inputs()[i];
      StatusOr<OutputTensor*> output = response->AddOutput(
          "OUTPUT" + std::to_string(i), input.datatype, input.shape.data(),
          static_cast<uint32_t>(input.shape.size()));
      ASSERT_TRUE(output.ok());
      INFERD_MemoryType type = INFERD_MEMORY_CPU;
      int64_t type_id = 0;
      ASSERT_TRUE(response->AllocateBuffer(*output, input.byte_size, &type, &type_id).ok());
      if ((*output)->buffer == nullptr) continue;  // not requested: dropped
      float* out = static_cast<float*>((*output)->buffer);
      for (const InputBuffer& buffer : input.buffers) {
        const float* in = static_cast<const float*>(buffer.base);
        for (size_t k = 0; k < buffer.byte_size / sizeof(float); ++k) *out++ = in[k] + add;
      }
    }
    ASSERT_TRUE(InferenceResponse::Send(std::move(response), INFERD_RESPONSE_COMPLETE_FINAL,
                                        error).ok());
    request->Release();
  }

  // A decoupled model's answer: one response per entry of `adds`, then FINAL
  // alone.
  void Stream(const std::string& model, const std::vector<float>& adds) {
    auto found = std::find_if(held_.begin(), held_.end(),
                              [&](InferenceRequest* r) { return r->model_name() == model; });
    ASSERT_NE(found, held_.end()) << model << " was not submitted";
    InferenceRequest* request = *found;
    held_.erase(found);
    for (float add : adds) {
      auto response = std::make_unique<InferenceResponse>(*request);
      const InputTensor& input = request->inputs()[0];
      StatusOr<OutputTensor*> output = response->AddOutput(
          "OUTPUT0", input.datatype, input.shape.data(), static_cast<uint32_t>(input.shape.size()));
      INFERD_MemoryType type = INFERD_MEMORY_CPU;
      int64_t type_id = 0;
      ASSERT_TRUE(response->AllocateBuffer(*output, input.byte_size, &type, &type_id).ok());
      const float* in = static_cast<const float*>(input.buffers[0].base);
      float* out = static_cast<float*>((*output)->buffer);
      for (size_t k = 0; k < input.byte_size / sizeof(float); ++k) out[k] = in[k] + add;
      ASSERT_TRUE(InferenceResponse::Send(std::move(response), 0, Status::Ok()).ok());
    }
    InferenceResponse::DeliverFinalFlag(*request);
    request->Release();
  }

  void Refuse(const std::string& model) { refuse_.insert(model); }

  // The ensemble's tally that the held request of `model` carries, as the
  // execution running it holds it (null if none).
  std::shared_ptr<ComputeTally> Tally(const std::string& model) const {
    for (const InferenceRequest* request : held_) {
      if (request->model_name() == model) return request->compute_tally;
    }
    return nullptr;
  }

  // Whether the held request of `model` was cancelled.
  bool Cancelled(const std::string& model) const {
    for (const InferenceRequest* request : held_) {
      if (request->model_name() == model) return request->cancelled();
    }
    return false;
  }

 private:
  const Clock& clock_;
  std::map<std::string, std::shared_ptr<FakeBoundModel>> models_;
  std::vector<InferenceRequest*> held_;
  std::set<std::string> refuse_;
};

// The client of the ensemble: its outputs land in malloc'd memory and are
// read back as floats.
struct Client {
  static INFERD_Error* Allocate(INFERD_ResponseAllocator*, const char*, size_t byte_size,
                                INFERD_MemoryType, int64_t, void*, void** buffer, void** userp,
                                INFERD_MemoryType* type, int64_t* type_id) {
    *buffer = byte_size ? std::malloc(byte_size) : nullptr;
    *userp = nullptr;
    *type = INFERD_MEMORY_CPU;
    *type_id = 0;
    return nullptr;
  }
  static INFERD_Error* Free(INFERD_ResponseAllocator*, void* buffer, void*, size_t,
                            INFERD_MemoryType, int64_t) {
    std::free(buffer);
    return nullptr;
  }
  static void OnResponse(INFERD_InferenceResponse* response, uint32_t flags, void* userp) {
    auto* client = static_cast<Client*>(userp);
    std::unique_ptr<InferenceResponse> owned(reinterpret_cast<InferenceResponse*>(response));
    ++client->responses;
    client->final_flags += (flags & INFERD_RESPONSE_COMPLETE_FINAL) ? 1 : 0;
    if (!owned) return;
    client->error = owned->error();
    for (const auto& output : owned->outputs()) {
      const float* data = static_cast<const float*>(output->buffer);
      client->outputs[output->name].assign(data, data + output->byte_size / sizeof(float));
      client->firsts[output->name].push_back(data[0]);
    }
  }
  static void OnRelease(INFERD_InferenceRequest*, uint32_t, void* userp) {
    ++static_cast<Client*>(userp)->released;
  }

  int responses = 0;
  int final_flags = 0;
  int released = 0;
  Status error;
  std::map<std::string, std::vector<float>> outputs;  // of the last response
  std::map<std::string, std::vector<float>> firsts;   // each response's first value
};

INFERD_ResponseAllocator client_allocator{&Client::Allocate, &Client::Free};

class EnsembleSchedulerTest : public ::testing::Test {
 protected:
  // An ensemble of the given steps, text as in config.pbtxt.
  void Load(const std::string& steps, const std::string& extra = "") {
    inference::ModelConfig config;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
        "name: 'ens' platform: 'ensemble' ensemble_scheduling { " + steps + " } " + extra,
        &config));
    scheduler_ = std::make_unique<EnsembleScheduler>(config, &submitter_);
  }

  // Enqueues a request with inputs `inputs` (each one row of kWidth values
  // starting at the given value) asking for `outputs`.
  void Run(const std::map<std::string, float>& inputs, std::vector<std::string> outputs) {
    request_ = std::make_unique<InferenceRequest>("ens", -1);
    for (const auto& [name, first] : inputs) {
      std::vector<float>& data = data_[name];
      for (int64_t i = 0; i < kWidth; ++i) data.push_back(first + static_cast<float>(i));
      const int64_t shape[] = {1, kWidth};
      ASSERT_TRUE(request_->AddInput(name, INFERD_TYPE_FP32, shape, 2).ok());
      ASSERT_TRUE(request_->AppendInputData(name, {data.data(), data.size() * sizeof(float)}).ok());
    }
    request_->outputs = std::make_shared<std::vector<std::string>>(std::move(outputs));
    request_->route = {&client_allocator, nullptr, &Client::OnResponse, &client_};
    request_->release_fn = &Client::OnRelease;
    request_->release_userp = &client_;
    request_->Bind(ensemble_);
    ASSERT_TRUE(scheduler_->Enqueue(request_.get()).ok());
  }

  static std::string Step(const std::string& model, const std::string& in,
                          const std::string& out) {
    return "step { model_name: '" + model + "' input_map { key: 'INPUT0' value: '" + in +
           "' } output_map { key: 'OUTPUT0' value: '" + out + "' } }";
  }

  FakeClock clock_;
  FakeSubmitter submitter_{clock_};
  std::shared_ptr<FakeBoundModel> ensemble_ = std::make_shared<FakeBoundModel>(clock_, "ens");
  std::unique_ptr<EnsembleScheduler> scheduler_;
  std::map<std::string, std::vector<float>> data_;
  std::unique_ptr<InferenceRequest> request_;
  Client client_;
};

TEST_F(EnsembleSchedulerTest, LinearStepsRunOneAfterAnother) {
  Load(Step("a", "IN", "t") + Step("b", "t", "OUT"));
  Run({{"IN", 1}}, {"OUT"});
  EXPECT_THAT(submitter_.Held(), ElementsAre("a"));
  submitter_.Complete("a", 10);
  EXPECT_THAT(submitter_.Held(), ElementsAre("b"));
  EXPECT_EQ(client_.responses, 0);
  submitter_.Complete("b", 100);
  EXPECT_EQ(client_.final_flags, 1);
  EXPECT_TRUE(client_.error.ok()) << client_.error.ToString();
  EXPECT_THAT(client_.outputs["OUT"], ElementsAre(111, 112, 113, 114));
  EXPECT_EQ(client_.released, 1);
  EXPECT_EQ(scheduler_->InflightCount(), 0u);
}

TEST_F(EnsembleSchedulerTest, DiamondRunsIndependentStepsTogether) {
  Load("step { model_name: 'join' input_map { key: 'INPUT0' value: 'l' } input_map { key: "
       "'INPUT1' value: 'r' } output_map { key: 'OUTPUT0' value: 'L' } output_map { key: "
       "'OUTPUT1' value: 'R' } }" +
       Step("b", "t", "l") + Step("c", "t", "r") + Step("a", "IN", "t"));
  Run({{"IN", 0}}, {"L", "R"});
  EXPECT_THAT(submitter_.Held(), ElementsAre("a"));
  submitter_.Complete("a", 1);
  // Both branches are in flight before either finishes.
  EXPECT_THAT(submitter_.Held(), UnorderedElementsAre("b", "c"));
  submitter_.Complete("c", 20);
  EXPECT_TRUE(submitter_.Held() == std::vector<std::string>{"b"});
  submitter_.Complete("b", 10);
  EXPECT_THAT(submitter_.Held(), ElementsAre("join"));
  submitter_.Complete("join", 0);
  EXPECT_THAT(client_.outputs["L"], ElementsAre(11, 12, 13, 14));
  EXPECT_THAT(client_.outputs["R"], ElementsAre(21, 22, 23, 24));
  EXPECT_EQ(client_.released, 1);
}

TEST_F(EnsembleSchedulerTest, OnlyTheStepsTheRequestedOutputsNeedRun) {
  Load(Step("a", "IN", "X") + Step("b", "IN", "t") + Step("c", "t", "Y"));
  Run({{"IN", 0}}, {"Y"});
  EXPECT_THAT(submitter_.Held(), ElementsAre("b"));
  submitter_.Complete("b", 1);
  submitter_.Complete("c", 1);
  EXPECT_TRUE(submitter_.Held().empty());
  EXPECT_EQ(client_.outputs.size(), 1u);
  EXPECT_THAT(client_.outputs["Y"], ElementsAre(2, 3, 4, 5));
}

TEST_F(EnsembleSchedulerTest, FailingStepFailsTheRequestNamingStepAndModel) {
  Load(Step("a", "IN", "t") + Step("b", "t", "OUT"));
  Run({{"IN", 0}}, {"OUT"});
  submitter_.Complete("a", 0, Status::Internal("backend exploded"));
  EXPECT_TRUE(submitter_.Held().empty());  // b never runs
  EXPECT_EQ(client_.final_flags, 1);
  EXPECT_EQ(client_.error.code(), Status::Code::kInternal);
  EXPECT_THAT(client_.error.message(),
              HasSubstr("ensemble 'ens' step[0] (model 'a'): backend exploded"));
  EXPECT_EQ(client_.released, 1);
}

TEST_F(EnsembleSchedulerTest, RefusedStepFailsTheRequestOnceOtherStepsAreDone) {
  Load(Step("a", "IN", "X") + Step("gone", "IN", "Y"));
  submitter_.Refuse("gone");
  Run({{"IN", 0}}, {"X", "Y"});
  // The refusal is answered at once; the client's inputs stay borrowed by a
  // until it is released, so the client request is released only then.
  EXPECT_EQ(client_.final_flags, 1);
  EXPECT_THAT(client_.error.message(),
              HasSubstr("ensemble 'ens' step[1] (model 'gone'): model 'gone' is not loaded"));
  EXPECT_EQ(client_.released, 0);
  submitter_.Complete("a", 0);
  EXPECT_EQ(client_.final_flags, 1);  // nothing more is sent
  EXPECT_EQ(client_.released, 1);
}

TEST_F(EnsembleSchedulerTest, DecoupledStepStreamsThroughLaterSteps) {
  // a streams three responses; b runs once per response and reads the
  // ensemble input X too (reused each time); the client gets three responses.
  Load("step { model_name: 'b' input_map { key: 'INPUT0' value: 't' } input_map { key: "
       "'INPUT1' value: 'X' } output_map { key: 'OUTPUT0' value: 'OUT' } output_map { key: "
       "'OUTPUT1' value: 'XOUT' } }" +
           Step("a", "IN", "t"),
       "model_transaction_policy { decoupled: true }");
  Run({{"IN", 0}, {"X", 50}}, {"OUT", "XOUT"});
  submitter_.Stream("a", {1, 2, 3});
  EXPECT_THAT(submitter_.Held(), ElementsAre("b", "b", "b"));
  EXPECT_EQ(client_.responses, 0);
  submitter_.Complete("b", 10);
  submitter_.Complete("b", 20);
  EXPECT_THAT(client_.firsts["OUT"], ElementsAre(11, 22));
  EXPECT_EQ(client_.final_flags, 0);
  submitter_.Complete("b", 30);
  EXPECT_THAT(client_.firsts["OUT"], ElementsAre(11, 22, 33));
  EXPECT_THAT(client_.firsts["XOUT"], ElementsAre(60, 70, 80));
  EXPECT_EQ(client_.responses, 4);  // three with outputs, then FINAL alone
  EXPECT_EQ(client_.final_flags, 1);
  EXPECT_EQ(client_.released, 1);
}

TEST_F(EnsembleSchedulerTest, DecoupledStepWithoutResponsesEndsTheStream) {
  Load(Step("a", "IN", "t") + Step("b", "t", "OUT"), "model_transaction_policy { decoupled: true }");
  Run({{"IN", 0}}, {"OUT"});
  submitter_.Stream("a", {});
  EXPECT_TRUE(submitter_.Held().empty());
  EXPECT_EQ(client_.responses, 1);
  EXPECT_EQ(client_.final_flags, 1);
  EXPECT_TRUE(client_.error.ok());
}

TEST_F(EnsembleSchedulerTest, NonDecoupledEnsembleAnswersOnceEvenIfAStepStreams) {
  Load(Step("a", "IN", "OUT"));
  Run({{"IN", 0}}, {"OUT"});
  submitter_.Stream("a", {1, 2});
  EXPECT_EQ(client_.final_flags, 1);
  EXPECT_EQ(client_.responses, 1);
  EXPECT_TRUE(client_.error.ok());  // the first answer went out, FINAL
  EXPECT_THAT(client_.firsts["OUT"], ElementsAre(1));
}

TEST_F(EnsembleSchedulerTest, FailingStepCancelsTheStepsInFlight) {
  Load(Step("a", "IN", "X") + Step("b", "IN", "Y"));
  Run({{"IN", 0}}, {"X", "Y"});
  EXPECT_THAT(submitter_.Held(), UnorderedElementsAre("a", "b"));
  submitter_.Complete("a", 0, Status::Internal("broken"));
  EXPECT_TRUE(submitter_.Cancelled("b"));
  EXPECT_THAT(client_.error.message(), HasSubstr("step[0] (model 'a'): broken"));
  EXPECT_EQ(client_.released, 0);  // b still borrows the client's input
  submitter_.Complete("b", 0, Status::Cancelled("cancelled"));
  EXPECT_EQ(client_.final_flags, 1);
  EXPECT_EQ(client_.released, 1);
}

TEST_F(EnsembleSchedulerTest, CancelledClientRequestStartsNoFurtherStep) {
  Load(Step("a", "IN", "t") + Step("b", "t", "OUT"));
  Run({{"IN", 0}}, {"OUT"});
  request_->Cancel();
  submitter_.Complete("a", 0);
  EXPECT_TRUE(submitter_.Held().empty());
  EXPECT_EQ(client_.error.code(), Status::Code::kCancelled);
  EXPECT_THAT(client_.error.message(), HasSubstr("ensemble 'ens': the request was cancelled"));
  EXPECT_EQ(client_.released, 1);
}

TEST_F(EnsembleSchedulerTest, StoppedSchedulerRefusesNewRequests) {
  Load(Step("a", "IN", "OUT"));
  scheduler_->Stop();
  InferenceRequest request("ens", -1);
  EXPECT_EQ(scheduler_->Enqueue(&request).code(), Status::Code::kUnavailable);
}

// --- Statistics: a successful run counts in the ensemble's statistics like one
// execution, with its steps' compute times summed (Triton's rule).

TEST_F(EnsembleSchedulerTest, ASuccessfulRunCountsOnceWithItsStepsComputeTimes) {
  Load(Step("a", "IN", "t") + Step("b", "t", "OUT"));
  Run({{"IN", 0}}, {"OUT"});
  submitter_.Tally("a")->Add(1, 10, 100);  // what a's execution took
  submitter_.Complete("a");
  submitter_.Tally("b")->Add(2, 20, 200);
  submitter_.Complete("b");
  ASSERT_TRUE(client_.error.ok());

  const ModelStatistics& stats = ensemble_->stats();
  EXPECT_EQ(stats.execution_count.load(), 1u);
  EXPECT_EQ(stats.inference_count.load(), 1u);  // one row: the ensemble does not batch here
  EXPECT_EQ(stats.last_inference_ms.load(), clock_.WallMs());
  EXPECT_EQ(stats.success.count.load(), 1u);
  EXPECT_EQ(stats.queue.count.load(), 1u);
  EXPECT_EQ(stats.compute_input.count.load(), 1u);
  EXPECT_EQ(stats.compute_input.ns.load(), 3u);
  EXPECT_EQ(stats.compute_infer.ns.load(), 30u);
  EXPECT_EQ(stats.compute_output.ns.load(), 300u);
  EXPECT_EQ(stats.batch[1].compute_infer.count.load(), 1u);
  EXPECT_EQ(stats.batch[1].compute_output.ns.load(), 300u);
}

TEST_F(EnsembleSchedulerTest, AStepTimedAfterItsRequestWasReleasedStillCounts) {
  Load(Step("a", "IN", "OUT"));
  Run({{"IN", 0}}, {"OUT"});
  std::shared_ptr<ComputeTally> execution = submitter_.Tally("a");
  submitter_.Complete("a");  // the backend released it before its execution was timed
  EXPECT_EQ(client_.final_flags, 1);
  EXPECT_EQ(ensemble_->stats().execution_count.load(), 0u);
  execution->Add(0, 7, 0);
  execution.reset();
  EXPECT_EQ(ensemble_->stats().execution_count.load(), 1u);
  EXPECT_EQ(ensemble_->stats().compute_infer.ns.load(), 7u);
}

TEST_F(EnsembleSchedulerTest, AFailedRunCountsAsAFailureOnly) {
  Load(Step("a", "IN", "t") + Step("b", "t", "OUT"));
  Run({{"IN", 0}}, {"OUT"});
  submitter_.Tally("a")->Add(1, 10, 100);
  submitter_.Complete("a", 0, Status::Internal("backend exploded"));
  const ModelStatistics& stats = ensemble_->stats();
  EXPECT_EQ(stats.fail.count.load(), 1u);
  EXPECT_EQ(stats.success.count.load(), 0u);
  EXPECT_EQ(stats.execution_count.load(), 0u);
  EXPECT_EQ(stats.queue.count.load(), 0u);
  EXPECT_EQ(stats.compute_infer.count.load(), 0u);
}

}  // namespace
}  // namespace inferd

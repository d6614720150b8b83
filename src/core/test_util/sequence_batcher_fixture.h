// The sequence batcher's test fixture (sequence_batcher_test.cc,
// sequence_batcher_iterative_test.cc): a model "seq" with every control
// input, requests built bound to a fake model on a FakeClock, and instances
// played from a thread (InstanceThread). Include in tests only.
#ifndef INFERD_CORE_TEST_UTIL_SEQUENCE_BATCHER_FIXTURE_H_
#define INFERD_CORE_TEST_UTIL_SEQUENCE_BATCHER_FIXTURE_H_

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/infer/inference_request.h"
#include "core/scheduler/sequence_batcher.h"
#include "core/test_util/fake_bound_model.h"
#include "core/test_util/instance_thread.h"
#include "core/test_util/request_factory.h"
#include "core/timing/fake_clock.h"

namespace inferd {

inline constexpr char kControls[] = R"(
  control_input [
    { name: "START" control [ { kind: CONTROL_SEQUENCE_START fp32_false_true: [ 0, 1 ] } ] },
    { name: "END" control [ { kind: CONTROL_SEQUENCE_END int32_false_true: [ 0, 1 ] } ] },
    { name: "READY" control [ { kind: CONTROL_SEQUENCE_READY bool_false_true: [ false, true ] } ] },
    { name: "CORRID" control [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 } ] }
  ])";

// What a backend reads from a request's control inputs.
struct Seen {
  float start = -1;
  int32_t end = -1;
  bool ready = false;
  uint64_t corrid = 0;
};

template <typename T>
T Read(InferenceRequest* request, const char* name) {
  const InputTensor* input = request->FindInput(name);
  EXPECT_NE(input, nullptr) << name;
  T value{};
  if (input != nullptr && !input->buffers.empty()) {
    std::memcpy(&value, input->buffers[0].base, sizeof(T));
  }
  return value;
}

inline Seen Controls(InferenceRequest* request) {
  return {Read<float>(request, "START"), Read<int32_t>(request, "END"),
          Read<uint8_t>(request, "READY") != 0, Read<uint64_t>(request, "CORRID")};
}

class SequenceBatcherTest : public testing::Test {
 protected:
  // `batching`: the rest of sequence_batching (a strategy, iterative_sequence).
  void Start(const std::string& batching, int max_batch_size = 4, size_t instances = 1) {
    inference::ModelConfig config;
    const std::string text = "name: \"seq\" max_batch_size: " + std::to_string(max_batch_size) +
                             " sequence_batching { max_sequence_idle_microseconds: 1000000 " +
                             kControls + " " + batching + " }";
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config)) << text;
    model_ = std::make_shared<FakeBoundModel>(clock_, "seq", max_batch_size);
    requests_ = std::make_unique<RequestFactory>(model_);
    StatusOr<SequenceStates> states = SequenceStates::Load(config, "/nonexistent");
    ASSERT_TRUE(states.ok()) << states.status().ToString();
    batcher_ = std::make_unique<SequenceBatcher>(config, instances, clock_, std::move(*states));
  }

  // Request `id` of sequence `sequence` with `flags`; queued now.
  Status Send(const std::string& id, uint64_t sequence, uint32_t flags = 0) {
    InferenceRequest* request = requests_->Make(id, 1, {1});
    request->correlation_id = sequence;
    request->flags = flags;
    return batcher_->Enqueue(request);
  }

  std::vector<InferenceRequest*> TakeDueBatch(size_t instance = 0) {
    InstanceThread thread(batcher_.get(), batcher_.get(), instance);
    EXPECT_TRUE(thread.AwaitReturn()) << "no batch was due";
    if (!thread.returned()) return {};
    return thread.batch();
  }
  // Runs a batch as a backend would, then BatchDone; the ids, "-" for padding.
  static std::vector<std::string> Complete(SequenceBatcher& batcher,
                                           const std::vector<InferenceRequest*>& batch,
                                           size_t instance = 0) {
    std::vector<std::string> ids;
    for (InferenceRequest* request : batch) ids.push_back(request->id.empty() ? "-" : request->id);
    CompleteBatch(batch);
    batcher.BatchDone(instance, batch.size());
    return ids;
  }
  std::vector<std::string> RunDueBatch(size_t instance = 0) {
    return Complete(*batcher_, TakeDueBatch(instance), instance);
  }

  FakeClock clock_;
  std::shared_ptr<FakeBoundModel> model_;
  std::unique_ptr<RequestFactory> requests_;
  std::unique_ptr<SequenceBatcher> batcher_;  // last: stopped first
};

inline constexpr uint32_t kStart = INFERD_REQUEST_FLAG_SEQUENCE_START;
inline constexpr uint32_t kEnd = INFERD_REQUEST_FLAG_SEQUENCE_END;

}  // namespace inferd

#endif  // INFERD_CORE_TEST_UTIL_SEQUENCE_BATCHER_FIXTURE_H_

// The fixture of the dynamic batcher's tests (dynamic_batcher_test.cc,
// dynamic_batcher_queue_test.cc): one batcher in simulated time, requests
// queued on it, and instances played by an InstanceThread.
#ifndef INFERD_CORE_TEST_UTIL_DYNAMIC_BATCHER_FIXTURE_H_
#define INFERD_CORE_TEST_UTIL_DYNAMIC_BATCHER_FIXTURE_H_

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/infer/inference_request.h"
#include "core/scheduler/dynamic_batcher.h"
#include "core/test_util/fake_bound_model.h"
#include "core/test_util/instance_thread.h"
#include "core/test_util/request_factory.h"
#include "core/timing/fake_clock.h"
#include "core/timing/queue_sweeper.h"

namespace inferd {

inline constexpr uint64_t kMs = 1'000'000;  // ns

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

}  // namespace inferd

#endif  // INFERD_CORE_TEST_UTIL_DYNAMIC_BATCHER_FIXTURE_H_

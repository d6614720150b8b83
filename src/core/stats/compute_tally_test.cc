// ComputeTally (the sums handed over by its last holder) and the record an
// ensemble request makes in its statistics.
#include "core/stats/compute_tally.h"

#include <gtest/gtest.h>

#include <memory>

#include "core/stats/model_statistics.h"

namespace inferd {
namespace {

TEST(ComputeTallyTest, TheLastHolderHandsOverTheSums) {
  uint64_t handed[3] = {0, 0, 0};
  int calls = 0;
  auto tally = std::make_shared<ComputeTally>();
  std::shared_ptr<ComputeTally> execution = tally;
  tally->Add(1, 2, 3);
  tally->OnFinish([&](uint64_t in, uint64_t infer, uint64_t out) {
    ++calls;
    handed[0] = in;
    handed[1] = infer;
    handed[2] = out;
  });
  tally.reset();
  EXPECT_EQ(calls, 0);  // an execution still holds it
  execution->Add(10, 20, 30);
  execution.reset();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(handed[0], 11u);
  EXPECT_EQ(handed[1], 22u);
  EXPECT_EQ(handed[2], 33u);
}

TEST(ComputeTallyTest, WithoutAFinishTheSumsAreDropped) {
  auto tally = std::make_shared<ComputeTally>();
  tally->Add(1, 2, 3);
  tally.reset();  // nothing to call: no crash, nothing recorded
  SUCCEED();
}

TEST(ModelStatisticsTest, AnEnsembleRequestCountsLikeOneExecution) {
  ModelStatistics stats(8);
  stats.RecordEnsembleRequest(2, 5, 1, 2, 3, 1234);
  stats.RecordEnsembleRequest(1, 7, 10, 20, 30, 1240);
  EXPECT_EQ(stats.execution_count.load(), 2u);
  EXPECT_EQ(stats.inference_count.load(), 3u);  // rows
  EXPECT_EQ(stats.last_inference_ms.load(), 1240u);
  EXPECT_EQ(stats.queue.count.load(), 2u);
  EXPECT_EQ(stats.queue.ns.load(), 12u);
  EXPECT_EQ(stats.compute_input.count.load(), 2u);
  EXPECT_EQ(stats.compute_infer.ns.load(), 22u);
  EXPECT_EQ(stats.compute_output.ns.load(), 33u);
  EXPECT_EQ(stats.batch[2].compute_infer.count.load(), 1u);
  EXPECT_EQ(stats.batch[2].compute_infer.ns.load(), 2u);
  EXPECT_EQ(stats.batch[1].compute_output.ns.load(), 30u);
  EXPECT_EQ(stats.success.count.load(), 0u);  // the final response records that
}

}  // namespace
}  // namespace inferd

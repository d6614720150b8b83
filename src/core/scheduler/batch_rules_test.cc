#include "core/scheduler/batch_rules.h"

#include <gtest/gtest.h>

namespace inferd {
namespace {

BatchRules Rules(int64_t max, std::vector<int64_t> preferred) {
  return BatchRules{max, std::move(preferred)};
}

TEST(BatchRulesTest, SendsAtOnceWhenTheLargestPreferredSizeIsReached) {
  BatchChoice choice = ChooseBatch({1, 1, 1, 1}, 4, Rules(8, {2, 4}), false);
  EXPECT_TRUE(choice.send_now);
  EXPECT_EQ(choice.request_count, 4u);
}

TEST(BatchRulesTest, WaitsForTheDelayWhenNoPreferredSizeIsComplete) {
  BatchChoice choice = ChooseBatch({1, 1, 1}, 3, Rules(8, {4, 8}), false);
  EXPECT_FALSE(choice.send_now);
}

TEST(BatchRulesTest, SendsWhatItHasWhenTheDelayExpires) {
  BatchChoice choice = ChooseBatch({1, 1, 1}, 3, Rules(8, {4, 8}), true);
  EXPECT_TRUE(choice.send_now);
  EXPECT_EQ(choice.request_count, 3u);
}

TEST(BatchRulesTest, PicksTheLargestPreferredSizeWhenMoreWaitThanFit) {
  // 1+2+2 = 5 is preferred; adding 4 would pass max 8; the queue holds more.
  BatchChoice choice = ChooseBatch({1, 2, 2, 4}, 4, Rules(8, {3, 5}), false);
  EXPECT_TRUE(choice.send_now);
  EXPECT_EQ(choice.request_count, 3u);
}

TEST(BatchRulesTest, NeverExceedsMaxBatchSize) {
  BatchChoice choice = ChooseBatch({3, 3, 3}, 3, Rules(8, {}), true);
  EXPECT_TRUE(choice.send_now);
  EXPECT_EQ(choice.request_count, 2u);
}

TEST(BatchRulesTest, IncompatibleShapesEndTheBatch) {
  BatchChoice choice = ChooseBatch({1, 1, 1}, 1, Rules(8, {}), false);
  EXPECT_TRUE(choice.send_now);
  EXPECT_EQ(choice.request_count, 1u);
}

TEST(BatchRulesTest, ARequestLargerThanTheRestStillGoesAlone) {
  BatchChoice choice = ChooseBatch({8, 1}, 2, Rules(8, {}), false);
  EXPECT_TRUE(choice.send_now);
  EXPECT_EQ(choice.request_count, 1u);
}

TEST(BatchRulesTest, RowsBeforeChoiceChangesCountsToTheNextPreferredSize) {
  EXPECT_EQ(RowsBeforeChoiceChanges(3, Rules(8, {4, 8})), 1);
  EXPECT_EQ(RowsBeforeChoiceChanges(5, Rules(8, {2, 4, 6})), 1);
  EXPECT_EQ(RowsBeforeChoiceChanges(1, Rules(8, {4, 6})), 3);
}

TEST(BatchRulesTest, RowsBeforeChoiceChangesCountsToMaxBatchSizeWithoutPreferredSizes) {
  EXPECT_EQ(RowsBeforeChoiceChanges(10, Rules(64, {})), 54);
  EXPECT_EQ(RowsBeforeChoiceChanges(7, Rules(64, {4})), 57);  // past every preferred size
  EXPECT_EQ(RowsBeforeChoiceChanges(3, Rules(16, {32})), 13);  // one above max never counts
}

}  // namespace
}  // namespace inferd

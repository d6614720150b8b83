// The concurrency sweep's stopping rule and a setting's score, on made-up steps.
#include "tune/sweep.h"

#include <gtest/gtest.h>

namespace inferd::tune {
namespace {

StepMeasurement Step(int64_t concurrency, double throughput, double p99_ms, uint64_t errors = 0) {
  return {concurrency, throughput, p99_ms / 2, p99_ms, 100, errors, errors ? "HTTP 500: boom" : ""};
}

// Runs the rule against a made-up server: throughput and p99 by concurrency.
std::vector<int64_t> Walk(const SweepRule& rule, double (*throughput)(int64_t), double (*p99)(int64_t)) {
  std::vector<StepMeasurement> done;
  while (auto next = NextConcurrency(rule, done)) done.push_back(Step(*next, throughput(*next), p99(*next)));
  std::vector<int64_t> concurrencies;
  for (const StepMeasurement& step : done) concurrencies.push_back(step.concurrency);
  return concurrencies;
}

TEST(SweepTest, DoublesUntilPastTheTarget) {
  SweepRule rule;
  rule.latency_target_ms = 10;
  // p99 = concurrency / 2 ms: 16 is at 8 ms, 32 passes the target at 16 ms.
  const auto steps = Walk(rule, [](int64_t c) { return 100.0 * double(c); }, [](int64_t c) { return double(c) / 2; });
  EXPECT_EQ(steps, (std::vector<int64_t>{1, 2, 4, 8, 16, 32}));
}

TEST(SweepTest, StopsWhenThroughputStopsGrowing) {
  SweepRule rule;
  rule.latency_target_ms = 1000;
  // Saturates at 8: 16 and 32 gain nothing.
  const auto steps = Walk(rule, [](int64_t c) { return 100.0 * double(std::min<int64_t>(c, 8)); },
                          [](int64_t c) { return double(c); });
  EXPECT_EQ(steps, (std::vector<int64_t>{1, 2, 4, 8, 16, 32}));
}

TEST(SweepTest, OneFlatStepDoesNotEndTheSweep) {
  SweepRule rule;
  rule.latency_target_ms = 1000;
  // A noisy dip at 2, then growth again up to 16.
  std::vector<StepMeasurement> done{Step(1, 150, 1), Step(2, 150, 1)};
  EXPECT_EQ(NextConcurrency(rule, done), 4);
  done.push_back(Step(4, 600, 1));
  done.push_back(Step(8, 590, 1));
  EXPECT_EQ(NextConcurrency(rule, done), 16);
  done.push_back(Step(16, 610, 1));  // +1.7% over 600: flat again, the second in a row
  EXPECT_EQ(NextConcurrency(rule, done), std::nullopt);
}

TEST(SweepTest, StopsAtTheCapIncludingIt) {
  SweepRule rule;
  rule.latency_target_ms = 1000;
  rule.max_concurrency = 12;
  const auto steps = Walk(rule, [](int64_t c) { return 100.0 * double(c); }, [](int64_t) { return 1.0; });
  EXPECT_EQ(steps, (std::vector<int64_t>{1, 2, 4, 8, 12}));
}

TEST(SweepTest, AFixedListIsMeasuredWhole) {
  SweepRule rule;
  rule.fixed = {8, 32};
  rule.latency_target_ms = 1;  // over the target at once: a fixed list still runs to its end
  const auto steps = Walk(rule, [](int64_t c) { return double(c); }, [](int64_t) { return 50.0; });
  EXPECT_EQ(steps, (std::vector<int64_t>{8, 32}));
}

TEST(SweepTest, ErrorsEndTheSweep) {
  SweepRule rule;
  std::vector<StepMeasurement> done{Step(1, 100, 1), Step(2, 200, 1, /*errors=*/3)};
  EXPECT_EQ(NextConcurrency(rule, done), std::nullopt);
}

TEST(SweepTest, TheScoreIsTheBestStepWithinTheTarget) {
  const std::vector<StepMeasurement> steps{Step(1, 100, 2), Step(4, 350, 6), Step(16, 900, 14),
                                           Step(32, 1000, 30, /*errors=*/1)};
  size_t best = 99;
  const Score score = ScoreSteps(steps, 10, &best);
  EXPECT_TRUE(score.feasible);
  EXPECT_EQ(score.throughput, 350);
  EXPECT_EQ(score.p99_ms, 2);
  EXPECT_EQ(best, 1u);
  // With a looser target the bigger step counts; the failing one never does.
  EXPECT_EQ(ScoreSteps(steps, 100, &best).throughput, 900);
  EXPECT_EQ(best, 2u);
}

TEST(SweepTest, NoStepWithinTheTargetCreditsTheLowestLatency) {
  const std::vector<StepMeasurement> steps{Step(1, 100, 12), Step(2, 150, 11), Step(4, 160, 20)};
  size_t best = 99;
  const Score score = ScoreSteps(steps, 10, &best);
  EXPECT_FALSE(score.feasible);
  EXPECT_EQ(score.p99_ms, 11);
  EXPECT_EQ(best, 1u);
  EXPECT_FALSE(ScoreSteps({}, 10, &best).feasible);
  EXPECT_EQ(best, 0u);
}

}  // namespace
}  // namespace inferd::tune

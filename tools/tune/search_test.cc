// The search on made-up measurements: the grid measures everything once, the
// descent finds the peak of single-peaked landscapes with fewer measurements,
// feasibility beats throughput, margins hold it still, interrupts stop it.
#include "tune/search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "tune/search_space.h"

namespace inferd::tune {
namespace {

SearchSpace Space(std::vector<int64_t> batch, std::vector<int64_t> delay, std::vector<int64_t> instances) {
  return SearchSpace{{std::move(batch), std::move(delay), std::move(instances)}};
}

Score Feasible(double throughput, double p99_ms = 10) { return {true, throughput, p99_ms}; }
Score Missing(double p99_ms) { return {false, 0, p99_ms}; }

// Throughput peaking at `peak`, falling off with the distance in index steps.
Evaluate Peak(GridIndex peak, int* calls = nullptr) {
  return [peak, calls](const GridIndex& at) -> std::optional<Score> {
    if (calls != nullptr) ++*calls;
    double distance = 0;
    for (size_t d = 0; d < kDimensions; ++d) distance += std::abs(double(at[d]) - double(peak[d]));
    return Feasible(1000 / (1 + distance));
  };
}

TEST(SearchTest, BetterComparesFeasibilityThenThroughputThenLatency) {
  EXPECT_TRUE(Better(Feasible(10), Missing(1), 0));
  EXPECT_FALSE(Better(Missing(1), Feasible(10), 0));
  EXPECT_TRUE(Better(Feasible(110), Feasible(100), 0.05));
  EXPECT_FALSE(Better(Feasible(104), Feasible(100), 0.05));
  EXPECT_TRUE(Better(Missing(50), Missing(100), 0.05));
  EXPECT_FALSE(Better(Missing(100), Missing(50), 0));
  EXPECT_FALSE(Better(Score{}, Score{}, 0));  // two failed loads tie
}

TEST(SearchTest, ExhaustiveMeasuresEveryPointOnceAndFindsTheBest) {
  const SearchSpace space = Space({1, 8, 32}, {0, 1000}, {1, 2});
  int calls = 0;
  const SearchResult result = SearchExhaustive(space, Peak({1, 1, 0}, &calls));
  EXPECT_EQ(calls, 12);
  ASSERT_EQ(result.measured.size(), 12u);
  EXPECT_EQ(result.measured.front(), (GridIndex{0, 0, 0}));
  EXPECT_EQ(result.measured.back(), (GridIndex{2, 1, 1}));
  EXPECT_EQ(result.measured[result.best], (GridIndex{1, 1, 0}));
  EXPECT_FALSE(result.interrupted);
}

TEST(SearchTest, DescentFindsThePeakWithFewerMeasurements) {
  const SearchSpace space = Space({1, 4, 16, 64}, {0, 500, 2000, 8000}, {1, 2, 4});
  for (const GridIndex& peak : {GridIndex{3, 2, 1}, GridIndex{0, 0, 0}, GridIndex{1, 3, 2}}) {
    for (const GridIndex& start : {GridIndex{0, 0, 0}, GridIndex{3, 3, 2}, GridIndex{2, 1, 1}}) {
      int calls = 0;
      const SearchResult result = SearchCoordinateDescent(space, start, 0.03, Peak(peak, &calls));
      EXPECT_EQ(result.measured[result.best], peak);
      EXPECT_EQ(size_t(calls), result.measured.size()) << "a point measured twice";
      EXPECT_LT(result.measured.size(), space.size() / 2);
    }
  }
}

TEST(SearchTest, DescentStartsWhereItIsTold) {
  const SearchSpace space = Space({1, 8}, {0, 100}, {1, 2});
  const SearchResult result = SearchCoordinateDescent(space, {1, 0, 1}, 0.03, Peak({1, 0, 1}));
  EXPECT_EQ(result.measured.front(), (GridIndex{1, 0, 1}));
  // The start is the peak: only its neighbours are measured.
  EXPECT_EQ(result.measured.size(), 4u);
}

TEST(SearchTest, DescentLeavesInfeasiblePointsForFeasibleOnes) {
  const SearchSpace space = Space({1, 8, 64}, {0}, {1});
  // 64 misses the target whatever its throughput would be; 8 is best within it.
  std::map<GridIndex, Score> scores{{{0, 0, 0}, Feasible(100)}, {{1, 0, 0}, Feasible(500)},
                                    {{2, 0, 0}, Missing(80)}};
  const SearchResult result = SearchCoordinateDescent(
      space, {2, 0, 0}, 0.03, [&](const GridIndex& at) { return std::optional<Score>(scores.at(at)); });
  EXPECT_EQ(result.measured[result.best], (GridIndex{1, 0, 0}));
  EXPECT_TRUE(result.scores[result.best].feasible);
}

TEST(SearchTest, DescentMovesTowardLowerLatencyWhenNothingIsFeasible) {
  const SearchSpace space = Space({1, 8, 64}, {0}, {1});
  std::map<GridIndex, Score> scores{{{0, 0, 0}, Feasible(50)}, {{1, 0, 0}, Missing(20)},
                                    {{2, 0, 0}, Missing(90)}};
  const SearchResult result = SearchCoordinateDescent(
      space, {2, 0, 0}, 0.03, [&](const GridIndex& at) { return std::optional<Score>(scores.at(at)); });
  EXPECT_EQ(result.measured.size(), 3u);
  EXPECT_EQ(result.measured[result.best], (GridIndex{0, 0, 0}));
}

TEST(SearchTest, DescentIgnoresGainsWithinTheMargin) {
  const SearchSpace space = Space({1, 2, 4, 8}, {0}, {1});
  // Each step up gains 2%, under the 3% margin: the walk never leaves the start.
  const Evaluate creep = [](const GridIndex& at) {
    return std::optional<Score>(Feasible(100 * std::pow(1.02, double(at[kBatch]))));
  };
  const SearchResult result = SearchCoordinateDescent(space, {0, 0, 0}, 0.03, creep);
  EXPECT_EQ(result.measured.size(), 2u);
  // The best measured point is still reported, even though the walk stayed.
  EXPECT_EQ(result.measured[result.best], (GridIndex{1, 0, 0}));
}

TEST(SearchTest, AnInterruptStopsBothSearches) {
  const SearchSpace space = Space({1, 8, 32}, {0, 1000}, {1, 2});
  int calls = 0;
  const Evaluate stop_after_three = [&](const GridIndex&) -> std::optional<Score> {
    if (++calls > 3) return std::nullopt;
    return Feasible(calls);
  };
  SearchResult result = SearchExhaustive(space, stop_after_three);
  EXPECT_TRUE(result.interrupted);
  EXPECT_EQ(result.measured.size(), 3u);
  EXPECT_EQ(result.best, 2u);
  calls = 0;
  result = SearchCoordinateDescent(space, {1, 0, 0}, 0, stop_after_three);
  EXPECT_TRUE(result.interrupted);
  EXPECT_EQ(result.measured.size(), 3u);
}

TEST(SearchSpaceTest, NearestSnapsEachDimension) {
  const SearchSpace space = Space({4, 16, 64}, {0, 1000, 4000}, {1, 2, 4});
  EXPECT_EQ(space.Nearest({64, 4000, 1}), (GridIndex{2, 2, 0}));
  EXPECT_EQ(space.Nearest({20, 3000, 3}), (GridIndex{1, 2, 1}));
  EXPECT_EQ(space.size(), 27u);
  EXPECT_EQ(space.At({1, 2, 0}), (Setting{16, 4000, 1}));
}

TEST(SearchSpaceTest, ValueListsAreSortedUniqueAndChecked) {
  std::vector<int64_t> values;
  EXPECT_EQ(ParseValueList("--instance-counts", "4,1,2,2", 1, &values), "");
  EXPECT_EQ(values, (std::vector<int64_t>{1, 2, 4}));
  EXPECT_EQ(ParseValueList("--instance-counts", "1,0", 1, &values),
            "--instance-counts '1,0': '0' is not a whole number >= 1");
  EXPECT_NE(ParseValueList("--queue-delays-us", "10,x", 0, &values).find("'x'"), std::string::npos);
  EXPECT_NE(ParseValueList("--queue-delays-us", "", 0, &values), "");
  EXPECT_NE(ParseValueList("--max-batch-sizes", "1,,2", 1, &values), "");
}

}  // namespace
}  // namespace inferd::tune

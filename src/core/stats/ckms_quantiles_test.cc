// CKMS targeted quantiles: the value returned for each target quantile has a
// rank within the target's error of q * n, whatever the order of the stream.
#include "core/stats/ckms_quantiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace inferd {
namespace {

// Checks every target of `targets` against the exact ranks of `values`.
void ExpectWithinError(const std::vector<double>& values,
                       const std::vector<QuantileTarget>& targets, CkmsQuantiles& ckms) {
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const double n = static_cast<double>(sorted.size());
  for (const QuantileTarget& t : targets) {
    const double got = ckms.Get(t.quantile);
    // The ranks `got` holds in the stream (a range when values repeat).
    const double low = std::lower_bound(sorted.begin(), sorted.end(), got) - sorted.begin();
    const double high = std::upper_bound(sorted.begin(), sorted.end(), got) - sorted.begin();
    ASSERT_LT(low, high) << "the value returned was never inserted: " << got;
    const double want = t.quantile * n;
    const double slack = t.error * n + 1;
    EXPECT_TRUE(high >= want - slack && low <= want + slack)
        << "q=" << t.quantile << " e=" << t.error << ": got " << got << " with ranks [" << low
        << ", " << high << "], want rank " << want << " +- " << slack;
  }
}

std::vector<double> Insert(CkmsQuantiles& ckms, std::vector<double> values) {
  for (double v : values) ckms.Insert(v);
  return values;
}

TEST(CkmsQuantilesTest, EmptyStreamHasNoQuantile) {
  CkmsQuantiles ckms(DefaultQuantiles());
  EXPECT_TRUE(std::isnan(ckms.Get(0.5)));
}

TEST(CkmsQuantilesTest, FewValuesAreKeptExactly) {
  const std::vector<QuantileTarget> targets = {{0.5, 0.05}, {0.99, 0.001}};
  CkmsQuantiles ckms(targets);
  const std::vector<double> values = Insert(ckms, {5.0, 1.0, 3.0, 4.0, 2.0});
  ExpectWithinError(values, targets, ckms);
  EXPECT_EQ(ckms.sample_size(), 5u);
}

TEST(CkmsQuantilesTest, ShuffledUniformWithinError) {
  std::vector<double> values(100000);
  std::iota(values.begin(), values.end(), 0.0);
  std::mt19937 rng(7);
  std::shuffle(values.begin(), values.end(), rng);
  CkmsQuantiles ckms(DefaultQuantiles());
  Insert(ckms, values);
  ExpectWithinError(values, DefaultQuantiles(), ckms);
  // It summarizes: far fewer samples than values.
  EXPECT_LT(ckms.sample_size(), values.size() / 10);
}

TEST(CkmsQuantilesTest, AscendingAndDescendingStreamsWithinError) {
  const std::vector<QuantileTarget> targets = {{0.5, 0.05}, {0.9, 0.01}, {0.99, 0.001}};
  std::vector<double> up(50000);
  std::iota(up.begin(), up.end(), 0.0);
  std::vector<double> down(up.rbegin(), up.rend());
  CkmsQuantiles ascending(targets);
  ExpectWithinError(Insert(ascending, up), targets, ascending);
  CkmsQuantiles descending(targets);
  ExpectWithinError(Insert(descending, down), targets, descending);
}

TEST(CkmsQuantilesTest, SkewedLatenciesWithinError) {
  // Exponential latencies (mean 200 us) with repeats, as request times look.
  std::mt19937 rng(11);
  std::exponential_distribution<double> exponential(1.0 / 200);
  std::vector<double> values;
  for (int i = 0; i < 60000; ++i) values.push_back(std::floor(exponential(rng)));
  const std::vector<QuantileTarget> targets = {{0.5, 0.01}, {0.75, 0.02}, {0.99, 0.001}};
  CkmsQuantiles ckms(targets);
  ExpectWithinError(Insert(ckms, values), targets, ckms);
}

TEST(CkmsQuantilesTest, QueriesBetweenInsertsStayWithinError) {
  const std::vector<QuantileTarget> targets = {{0.5, 0.05}, {0.9, 0.01}};
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> uniform(0, 1000);
  CkmsQuantiles ckms(targets);
  std::vector<double> values;
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 777; ++i) {
      values.push_back(uniform(rng));
      ckms.Insert(values.back());
    }
    ExpectWithinError(values, targets, ckms);
  }
  EXPECT_EQ(ckms.count(), values.size());
}

TEST(CkmsQuantilesTest, ResetForgetsEverything) {
  CkmsQuantiles ckms({{0.5, 0.05}});
  for (int i = 0; i < 1000; ++i) ckms.Insert(i);
  ckms.Reset();
  EXPECT_EQ(ckms.count(), 0u);
  EXPECT_TRUE(std::isnan(ckms.Get(0.5)));
  ckms.Insert(42);
  EXPECT_EQ(ckms.Get(0.5), 42);
}

}  // namespace
}  // namespace inferd

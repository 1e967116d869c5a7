#include <gtest/gtest.h>

#include <vector>

#include "calibrate/plogp_measure.hpp"

namespace collsel::calibrate {
namespace {

TEST(Estimate, MedianAndOrderStatisticInterval) {
  // 1..25: median 13; half = 1.96 x 5 / 2 = 4.9, ranks floor(12.5 - 4.9) = 7 and
  // ceil(12.5 + 4.9) = 18, i.e. values 8 and 19: spread (19 - 8) / (2 x 13).
  std::vector<double> v;
  for (int i = 25; i >= 1; --i) v.push_back(i);
  const Estimate e = estimate(v);
  EXPECT_DOUBLE_EQ(e.median, 13.0);
  EXPECT_DOUBLE_EQ(e.spread, 11.0 / 26.0);
}

TEST(Estimate, OneWildOutlierMovesNeitherMedianNorInterval) {
  std::vector<double> v(15, 10.0);
  const Estimate calm = estimate(v);
  v[3] = 1e6;  // a scheduler stall
  const Estimate stalled = estimate(v);
  EXPECT_EQ(stalled.median, 10.0);
  EXPECT_EQ(stalled.spread, calm.spread);
  EXPECT_EQ(stalled.spread, 0.0);
}

TEST(Estimate, TooFewSamplesHaveNoInterval) {
  EXPECT_EQ(estimate({}).median, 0.0);
  EXPECT_EQ(estimate({2.0, 4.0}).median, 3.0);
  EXPECT_EQ(estimate({2.0, 4.0}).spread, 0.0);
}

TEST(Estimate, SpreadNarrowsWithMoreSamplesOfTheSameDistribution) {
  std::vector<double> few, many;
  for (int i = 0; i < 9; ++i) few.push_back(100 + (i % 3));
  for (int i = 0; i < 45; ++i) many.push_back(100 + (i % 3));
  EXPECT_LE(estimate(many).spread, estimate(few).spread);
}

TEST(SizeWeight, SmallSizesCostTheirLatencyLargeOnesTheirBytes) {
  EXPECT_EQ(size_weight(0), size_weight(4096));
  EXPECT_EQ(size_weight(1 << 20), 1048576.0);
}

}  // namespace
}  // namespace collsel::calibrate

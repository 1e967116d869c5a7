#include <gtest/gtest.h>

#include "calibrate/plogp_measure.hpp"

namespace collsel::calibrate {
namespace {

using models::plogp::SizePoint;

// Every time column of a size set to one value, so each test moves only the one it is about.
SizePoint flat(std::uint64_t bytes, double seconds) {
  SizePoint p;
  p.bytes = bytes;
  p.gap_s = p.posted_gap_s = p.pipeline_gap_s = p.one_way_s = seconds;
  return p;
}

TEST(StepSearch, MidpointIsAMultipleOfEightAndNarrowBracketsStay) {
  EXPECT_EQ(step_midpoint(4096, 6144), 5120u);
  EXPECT_EQ(step_midpoint(100, 200), 144u);  // 150 rounded down to a multiple of 8
  EXPECT_EQ(step_midpoint(128, 192), 160u);  // exactly kNarrowestStepBracket wide
  EXPECT_EQ(step_midpoint(96, 128), 0u);
  EXPECT_EQ(step_midpoint(0, 1), 0u);
}

TEST(StepSearch, ALineThatHoldsKeepsNothing) {
  MeasuredPoint c{flat(5120, 560e-6)};
  EXPECT_FALSE(interpolation_misses(flat(4096, 540e-6), flat(6144, 580e-6), c, 0.10));
}

TEST(StepSearch, SimGridsBandwidthFactorStepIsFoundInTheOneWayTime) {
  // Simulated fast-ethernet, one message between two nodes (docs/BENCHMARKS.md, "The split
  // tree's swap"): 538.6 us at 4096 B and 582.6 us at 6144 B; at 5120 B the line says 560.6 us
  // where the default TCP factors make it about 644 us.
  const SizePoint a = flat(4096, 538.6e-6), b = flat(6144, 582.6e-6);
  MeasuredPoint c{flat(5120, 560.6e-6)};
  c.point.one_way_s = 644e-6;
  const auto missed = interpolation_misses(a, b, c, 0.10);
  ASSERT_TRUE(missed);
  EXPECT_EQ(*missed, "one-way");
  // 13 % off: a looser tolerance lets it pass.
  EXPECT_FALSE(interpolation_misses(a, b, c, 0.15));
}

TEST(StepSearch, EachColumnIsChecked) {
  const SizePoint a = flat(1024, 10e-6), b = flat(2048, 20e-6);
  for (const auto& [field, name] :
       {std::pair{&SizePoint::gap_s, "g"}, std::pair{&SizePoint::posted_gap_s, "g_p"},
        std::pair{&SizePoint::pipeline_gap_s, "g_2"}}) {
    MeasuredPoint c{flat(1536, 15e-6)};
    c.point.*field = 12e-6;  // the line says 15: 20 % of it
    const auto missed = interpolation_misses(a, b, c, 0.10);
    ASSERT_TRUE(missed) << name;
    EXPECT_EQ(*missed, name);
  }
}

TEST(StepSearch, NoiseIsNoStep) {
  const SizePoint a = flat(1024, 10e-6), b = flat(2048, 20e-6);
  MeasuredPoint c{flat(1536, 15e-6)};
  c.point.gap_s = 17.5e-6;  // 14 % of 17.5 off the line
  EXPECT_TRUE(interpolation_misses(a, b, c, 0.10));
  c.point.gap_spread = 0.08;  // but measured +-8 %: a miss must exceed twice that
  EXPECT_FALSE(interpolation_misses(a, b, c, 0.10));
  MeasuredPoint d{flat(1536, 15e-6)};
  d.one_way_spread = 0.08;
  d.point.one_way_s = 17.5e-6;
  EXPECT_FALSE(interpolation_misses(a, b, d, 0.10));
  d.one_way_spread = 0.05;
  EXPECT_TRUE(interpolation_misses(a, b, d, 0.10));
}

TEST(StepSearch, MissesBelowTheClocksGrainAreNotSteps) {
  // 30 ns off 60 ns is half the value, but below kStepClockGrain_s.
  MeasuredPoint c{flat(1536, 90e-9)};
  EXPECT_FALSE(interpolation_misses(flat(1024, 50e-9), flat(2048, 70e-9), c, 0.10));
}

}  // namespace
}  // namespace collsel::calibrate

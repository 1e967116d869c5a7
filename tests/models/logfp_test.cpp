// LogfP (seed 004, section 5): o(P) and the 1:P-P:1 round trip with the paper's o_min = 0.18 us
// and o_max = 1.6 us (L = 5 us, f = 8, g = 6 us chosen here), the parameter assessment of section
// 5.3 as collsel reads it (docs/MODELS.md, "LogfP"), and the fan-outs the selector uses.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "linear_params.hpp"
#include "models/logfp/fanout.hpp"
#include "models/logfp/logfp.hpp"

namespace collsel::models::logfp {
namespace {

using plogp::testing::linear_params;
using plogp::testing::same_seconds;

Params paper() {
  Params p;
  p.latency_s = 5e-6;
  p.o_min_s = 0.18e-6;
  p.o_max_s = 1.6e-6;
  p.gap_s = 6e-6;
  p.f = 8;
  p.max_bytes = 1024;
  return p;
}

TEST(LogfpPaper, Eq2Overhead) {
  const Params p = paper();
  EXPECT_TRUE(same_seconds(p.overhead_s(1), 1.78e-6));   // o_min + o_max
  EXPECT_TRUE(same_seconds(p.overhead_s(4), 0.58e-6));   // 0.18 + 1.6 / 4
  EXPECT_TRUE(same_seconds(p.overhead_s(16), 0.28e-6));  // 0.18 + 0.1
  EXPECT_TRUE(same_seconds(p.overhead_s(100000), 0.180016e-6));  // -> o_min
}

TEST(LogfpPaper, RttUpToF) {
  const Params p = paper();
  // 2L + P o(P) + o(1)
  EXPECT_TRUE(same_seconds(p.rtt_s(1), 13.56e-6));  // 10 + 1.78 + 1.78
  EXPECT_TRUE(same_seconds(p.rtt_s(4), 14.1e-6));   // 10 + 4 x 0.58 + 1.78
  EXPECT_TRUE(same_seconds(p.rtt_s(8), 14.82e-6));  // 10 + 8 x 0.38 + 1.78
}

TEST(LogfpPaper, RttBeyondFPaysTheGap) {
  const Params p = paper();
  // 2L + o(P) + o(1) + max{(P - 1) o(P), (P - f) g}
  EXPECT_TRUE(same_seconds(p.rtt_s(10), 24.12e-6));  // 10 + 0.34 + 1.78 + max{3.06, 12}
  EXPECT_TRUE(same_seconds(p.rtt_s(16), 60.06e-6));  // 10 + 0.28 + 1.78 + max{4.2, 48}
}

TEST(LogfpPaper, RttBeyondFWhenOverheadDominates) {
  Params p = paper();
  p.gap_s = 0.5e-6;
  // max{9 x 0.34, 2 x 0.5} = 3.06: the same as P <= f's 2L + P o(P) + o(1).
  EXPECT_TRUE(same_seconds(p.rtt_s(10), 15.18e-6));
  EXPECT_TRUE(same_seconds(p.rtt_s(10), 2 * 5e-6 + 10 * p.overhead_s(10) + p.overhead_s(1)));
}

TEST(LogfpPaper, FreeMessagesMakeRttPerMessageFallUntilF) {
  const Params p = paper();
  for (int n = 2; n <= 8; ++n) EXPECT_LT(p.rtt_s(n) / n, p.rtt_s(n - 1) / (n - 1)) << n;
  EXPECT_GT(p.rtt_s(9) / 9, p.rtt_s(8) / 8);
}

TEST(Logfp, FanoutIsTheFirstHalfOfTheRoundTrip) {
  const Params p = paper();
  for (int n : {1, 3, 8, 9, 20}) {
    EXPECT_TRUE(same_seconds(p.fanout_s(n) + p.latency_s + p.overhead_s(1), p.rtt_s(n))) << n;
  }
  EXPECT_TRUE(same_seconds(p.fanout_s(4), 7.32e-6));  // L + 4 o(4) = 5 + 2.32
  EXPECT_EQ(p.fanout_s(0), 0.0);
}

TEST(Logfp, InvalidReason) {
  EXPECT_EQ(paper().invalid_reason(), std::nullopt);
  Params p = paper();
  p.f = 0;
  EXPECT_EQ(p.invalid_reason(), "f = 0 must be >= 1");
  p = paper();
  p.gap_s = -1e-6;
  EXPECT_EQ(p.invalid_reason(), "gap_s = -1e-06 must be a finite number >= 0");
}

// --- the parameter assessment ---

std::vector<Sample> benchmark(const Params& p, int largest) {
  std::vector<Sample> samples;
  for (int n = largest; n >= 1; --n) samples.push_back({n, p.overhead_s(n), p.rtt_s(n)});
  return samples;
}

void expect_recovered(const Params& fitted, const Params& truth) {
  EXPECT_NEAR(fitted.latency_s, truth.latency_s, 1e-15);
  EXPECT_NEAR(fitted.o_min_s, truth.o_min_s, 1e-15);
  EXPECT_NEAR(fitted.o_max_s, truth.o_max_s, 1e-15);
  EXPECT_NEAR(fitted.gap_s, truth.gap_s, 1e-15);
  EXPECT_EQ(fitted.f, truth.f);
}

TEST(LogfpFit, RecoversTheParametersThatGeneratedTheSamples) {
  const Params truth = paper();
  const Params fitted = fit(benchmark(truth, 15), 64);
  expect_recovered(fitted, truth);
  EXPECT_EQ(fitted.max_bytes, 64u);
}

TEST(LogfpFit, RecoversAnotherCluster) {
  Params truth;
  truth.latency_s = 2e-6;
  truth.o_min_s = 0.3e-6;
  truth.o_max_s = 0.9e-6;
  truth.gap_s = 5e-6;
  truth.f = 4;
  expect_recovered(fit(benchmark(truth, 7), 8), truth);
}

TEST(LogfpFit, FIsTheMinimumOfRttPerMessageEvenWhenTheGapIsSmall) {
  // Section 5.3's reading of f: the argmin of RTT(P) / P. It is the model's f only when the first
  // paid message costs enough: here g = 3 us and RTT(5) / 5 = (4 + 0.48 + 1.2 + max{1.92, 3}) / 5 =
  // 1.736 us < RTT(4) / 4 = (4 + 4 x 0.525 + 1.2) / 4 = 1.825 us, so the fit says f = 5.
  Params truth;
  truth.latency_s = 2e-6;
  truth.o_min_s = 0.3e-6;
  truth.o_max_s = 0.9e-6;
  truth.gap_s = 3e-6;
  truth.f = 4;
  EXPECT_TRUE(same_seconds(truth.rtt_s(5) / 5, 1.736e-6));
  EXPECT_TRUE(same_seconds(truth.rtt_s(4) / 4, 1.825e-6));
  EXPECT_EQ(fit(benchmark(truth, 7), 8).f, 5);
}

TEST(LogfpFit, TwoOverheadsGiveThePapersTwoPointRule) {
  // o(1) = 1.78 us and o(1000) = 0.1816 us: o_max = (o(1) - o(1000)) / (1 - 1/1000) = 1.6 us.
  std::vector<Sample> samples = {{1, 1.78e-6, 13.56e-6}, {1000, 0.1816e-6, 2000e-6}};
  const Params fitted = fit(samples, 8);
  EXPECT_NEAR(fitted.o_max_s, 1.6e-6, 1e-15);
  EXPECT_NEAR(fitted.o_min_s, 0.18e-6, 1e-15);
}

TEST(LogfpFit, NothingBeyondFTakesTheGapFromTheLastMessagesMeasured) {
  // Samples up to P = f only: RTT(P)/P falls to the end, so f = 8, and no message paid g. Up to f,
  // RTT(P) = 2L + P o_min + o_max + o(1), so the slope over P = 4..8 is o_min: a further message
  // costs what the last ones did, and beyond f the (P - 1) o(P) term of the round trip rules.
  const Params fitted = fit(benchmark(paper(), 8), 64);
  EXPECT_EQ(fitted.f, 8);
  EXPECT_NEAR(fitted.gap_s, 0.18e-6, 1e-15);
  EXPECT_NEAR(fitted.rtt_s(32), 2 * 5e-6 + 32 * fitted.overhead_s(32) + fitted.overhead_s(1),
              1e-15);
}

TEST(LogfpFit, NothingBeyondFAndOneSampleInTheUpperHalfTakesThePapersAsymptote) {
  // P = 1 and P = 8 only: no slope to read above P = 4, so g = RTT(8) / 8 (the paper's
  // RTT(inf) / P at the largest P measured).
  const Params truth = paper();
  const Params fitted = fit({{1, truth.overhead_s(1), truth.rtt_s(1)},
                             {8, truth.overhead_s(8), truth.rtt_s(8)}}, 64);
  EXPECT_EQ(fitted.f, 8);
  EXPECT_NEAR(fitted.gap_s, 14.82e-6 / 8, 1e-15);
}

TEST(LogfpFit, OnlyOnePeerGivesAConstantOverhead) {
  const Params fitted = fit({{1, 2e-6, 14e-6}}, 8);
  EXPECT_EQ(fitted.o_min_s, 2e-6);
  EXPECT_EQ(fitted.o_max_s, 0.0);
  EXPECT_NEAR(fitted.latency_s, 5e-6, 1e-15);
  EXPECT_EQ(fitted.f, 1);
}

TEST(LogfpFit, RepeatedSamplesAreAveraged) {
  std::vector<Sample> samples = benchmark(paper(), 15);
  samples.push_back({4, paper().overhead_s(4) + 0.1e-6, paper().rtt_s(4)});
  samples.push_back({4, paper().overhead_s(4) - 0.1e-6, paper().rtt_s(4)});
  expect_recovered(fit(samples, 64), paper());
}

TEST(LogfpFit, NeedsOnePeer) {
  EXPECT_THROW(fit({{2, 1e-6, 14e-6}, {3, 1e-6, 15e-6}}, 8), std::invalid_argument);
  EXPECT_THROW(fit({}, 8), std::invalid_argument);
  EXPECT_THROW(fit({{1, 1e-6, 14e-6}, {0, 1e-6, 14e-6}}, 8), std::invalid_argument);
}

// --- the fan-outs (receiver's o_r from linear_params(): 0.3 us + 0.2 m ns) ---

TEST(LogfpFanout, Serves) {
  EXPECT_TRUE(serves(paper(), 0));
  EXPECT_TRUE(serves(paper(), 1024));
  EXPECT_FALSE(serves(paper(), 1025));
}

TEST(LogfpFanout, BcastAndScatterFlat) {
  const Params lf = paper();
  const plogp::Params p = linear_params();
  // fanout_s(3) = L + 3 o(3) = 5 + 3 x (0.18 + 1.6 / 3) = 7.14 us; o_r(100) = 0.32 us.
  EXPECT_TRUE(same_seconds(bcast_flat(lf, p, 4, 100), 7.46e-6));
  EXPECT_TRUE(same_seconds(scatter_flat(lf, p, 4, 100), 7.46e-6));
  // 11 peers > f: fanout_s(11) = L + o(11) + max{10 o(11), 3 g} = 5 + 0.325454... + 18.
  const double o11 = 0.18e-6 + 1.6e-6 / 11;
  EXPECT_TRUE(same_seconds(bcast_flat(lf, p, 12, 100), 5e-6 + o11 + 18e-6 + 0.32e-6));
  EXPECT_EQ(bcast_flat(lf, p, 1, 100), 0.0);
  EXPECT_EQ(scatter_flat(lf, p, 4, 0), 0.0);
}

TEST(LogfpFanout, AlltoallRoundCountsEveryReceive) {
  const Params lf = paper();
  const plogp::Params p = linear_params();
  // 7.14 + 3 x 0.32 us
  EXPECT_TRUE(same_seconds(alltoall_fanout_round(lf, p, 4, 100), 8.1e-6));
  EXPECT_EQ(alltoall_fanout_round(lf, p, 1, 100), 0.0);
  EXPECT_EQ(alltoall_fanout_round(lf, p, 4, 0), 0.0);
}

}  // namespace
}  // namespace collsel::models::logfp

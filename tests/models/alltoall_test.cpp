// The All-to-All models of seed 000 (Steffenel 2006) against the paper's formulas and printed
// numbers, collsel's schedule models, and the fit of the contention signature and of rho.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "linear_params.hpp"
#include "models/alltoall/contention.hpp"
#include "models/alltoall/signature_fit.hpp"

namespace collsel::models::alltoall {
namespace {

using plogp::testing::line_gp;
using plogp::testing::linear_params;
using plogp::testing::same_seconds;
using plogp::testing::two_gap_params;

::testing::AssertionResult within(double actual, double expected, double relative) {
  if (std::fabs(actual - expected) <= relative * std::fabs(expected)) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "got " << actual << ", expected " << expected
                                       << " within " << relative * 100 << " %";
}

// --- the paper's formulas ---

TEST(AlltoallPaper, Proposition1LowerBound) {
  const Hockney h{1e-4, 1e-8};
  // (n - 1) alpha + (n - 1) beta m: 7 x 1e-4 + 7 x 1000 x 1e-8.
  EXPECT_TRUE(same_seconds(lower_bound(h, 8, 1000), 7.7e-4));
  EXPECT_TRUE(same_seconds(lower_bound(h, 2, 0), 1e-4));
  EXPECT_EQ(lower_bound(h, 1, 1000), 0.0);  // alone: nothing to exchange
}

TEST(AlltoallPaper, Eq3SyntheticBetaOfSection6) {
  // beta_F and beta_C read off Fig. 3, rho = 0.5: the paper prints beta = 4.6742e-8 s/byte.
  const double beta = synthetic_beta(8.502e-9, 8.498189e-8, 0.5);
  EXPECT_NEAR(beta, 4.6742e-8, 0.00005e-8);
  EXPECT_EQ(synthetic_beta(8.502e-9, 8.498189e-8, 0.0), 8.502e-9);
  EXPECT_EQ(synthetic_beta(8.502e-9, 8.498189e-8, 1.0), 8.498189e-8);
}

TEST(AlltoallPaper, Eq4ContentionRatio) {
  const Hockney h{1e-4, 1e-8};
  // ((n - 1)(alpha + m beta)) gamma
  EXPECT_TRUE(same_seconds(contention_ratio_model(h, 2.5, 8, 1000), 7.7e-4 * 2.5));
  EXPECT_TRUE(same_seconds(contention_ratio_model(h, 1.0, 8, 1000), lower_bound(h, 8, 1000)));
}

TEST(AlltoallPaper, Eq5BelowAndAboveM) {
  const Hockney h{1e-4, 1e-8};
  const Signature s{2.0, 3e-3, 2048};
  // m < M: eq. 4 only. 3 x (1e-4 + 1e-5) x 2.
  EXPECT_TRUE(same_seconds(signature_model(h, s, 4, 1000), 6.6e-4));
  EXPECT_TRUE(same_seconds(signature_model(h, s, 4, 2047), 3 * (1e-4 + 2047e-8) * 2));
  // m >= M: every round adds delta. 3 x ((1e-4 + 2048e-8) x 2 + 3e-3).
  EXPECT_TRUE(same_seconds(signature_model(h, s, 4, 2048), 3 * ((1e-4 + 2048e-8) * 2 + 3e-3)));
  // No threshold: never a delta.
  const Signature none{2.0, 3e-3, kNoThreshold};
  EXPECT_TRUE(same_seconds(signature_model(h, none, 4, 1 << 20),
                           contention_ratio_model(h, 2.0, 4, 1 << 20)));
}

// Section 8.1's Fast Ethernet signature, gamma = 1.0195, delta = 8.23 ms for m >= M = 2 kB (read
// as 2048 bytes). The paper prints no alpha and beta; take its ~60 us latency and the nominal
// 100 Mbit/s (8e-8 s/byte) to show the formula at work on 24 processes.
TEST(AlltoallPaper, FastEthernetSignatureWorkedExample) {
  const Hockney h{60e-6, 8e-8};
  const Signature fast_ethernet{1.0195, 8.23e-3, 2048};
  // 1 KiB < M: 23 x (60e-6 + 1024 x 8e-8) x 1.0195 = 23 x 1.4192e-4 x 1.0195.
  EXPECT_TRUE(same_seconds(signature_model(h, fast_ethernet, 24, 1024), 3.32781112e-3));
  // 64 KiB >= M: 23 x ((60e-6 + 65536 x 8e-8) x 1.0195 + 8.23e-3) = 0.124345 + 0.18929.
  EXPECT_TRUE(same_seconds(signature_model(h, fast_ethernet, 24, 65536), 0.31363458168));
  // The lower bound alone would promise 0.122 s: delta is most of the cost there, as the paper
  // observes for Fast Ethernet ("the most important factor in this case is delta").
  EXPECT_TRUE(same_seconds(lower_bound(h, 24, 65536), 0.12196624));
}

// --- Hockney from pLogP, the stand-in ---

TEST(AlltoallHockney, FromPlogpTable) {
  // linear_params(): L = 5 us, g(m) = 1 us + m ns. alpha = L + g(0); beta = slope of g over
  // the sizes >= 1/64 of the largest (65536 and 1048576 bytes here).
  const Hockney h = hockney_from_plogp(linear_params());
  EXPECT_TRUE(same_seconds(h.alpha_s, 6e-6));
  EXPECT_NEAR(h.beta_s_per_byte, 1e-9, 1e-21);
}

TEST(AlltoallHockney, ContentionFreeStandIn) {
  const Contention c = contention_free(linear_params());
  EXPECT_FALSE(c.invalid_reason()) << *c.invalid_reason();
  EXPECT_EQ(c.sample_ranks, 0);
  EXPECT_EQ(c.signature.gamma, 1.0);
  EXPECT_EQ(c.signature.delta_s, 0.0);
  EXPECT_EQ(c.signature.threshold_bytes, kNoThreshold);
  EXPECT_EQ(c.beta_free_s_per_byte, c.hockney.beta_s_per_byte);
  EXPECT_EQ(c.beta_contention_s_per_byte, c.hockney.beta_s_per_byte);
  EXPECT_EQ(c.rho_single, 0.0);
  EXPECT_EQ(c.rho_flood, 0.0);
  EXPECT_EQ(c.copy_s_per_byte, kDefaultCopySecondsPerByte);
  // Contention-free, direct exchange is the lower bound.
  EXPECT_TRUE(same_seconds(direct_exchange(c, 16, 4096), lower_bound(c.hockney, 16, 4096)));
}

// --- collsel's schedule models ---

Contention test_contention() {
  Contention c;
  c.sample_ranks = 16;
  c.hockney = {1e-4, 1e-9};
  c.signature = {1.5, 1e-3, 65536};
  c.beta_free_s_per_byte = 1e-9;
  c.beta_contention_s_per_byte = 1e-8;
  c.rho_single = 0.0;
  c.rho_flood = 0.7;
  c.copy_s_per_byte = 2.5e-10;
  return c;
}

TEST(AlltoallSchedules, RhoInterpolatesBetweenOneAndSampleRanksMinusOneInFlight) {
  const Contention c = test_contention();
  EXPECT_EQ(rho_at(c, 1), 0.0);
  EXPECT_NEAR(rho_at(c, 15), 0.7, 1e-15);
  EXPECT_NEAR(rho_at(c, 8), 0.35, 1e-15);   // halfway from 1 to 15
  EXPECT_EQ(rho_at(c, 40), 1.0);            // extrapolated beyond n' - 1, clamped
}

TEST(AlltoallSchedules, DirectExchangeIsEq5) {
  const Contention c = test_contention();
  EXPECT_EQ(direct_exchange(c, 8, 100000), signature_model(c.hockney, c.signature, 8, 100000));
  EXPECT_EQ(direct_exchange(c, 8, 0), 0.0);
  EXPECT_EQ(direct_exchange(c, 1, 100), 0.0);
}

TEST(AlltoallSchedules, WindowedAndAllAtOnce) {
  const Contention c = test_contention();
  // k = 4 of n - 1 = 15: ceil(15 / 4) = 4 batches of alpha; rho(4) = 0.7 x 3 / 14 = 0.15.
  const double beta4 = synthetic_beta(1e-9, 1e-8, 0.15);
  EXPECT_TRUE(same_seconds(windowed(c, 16, 1000, 4), 4 * 1e-4 + 15 * 1000 * beta4));
  // all_at_once is k = n - 1: one batch, rho_flood.
  EXPECT_TRUE(same_seconds(all_at_once(c, 16, 1000),
                           1e-4 + 15 * 1000 * synthetic_beta(1e-9, 1e-8, 0.7)));
  EXPECT_EQ(all_at_once(c, 16, 1000), windowed(c, 16, 1000, 15));
  // k outside [1, n - 1] is clamped.
  EXPECT_EQ(windowed(c, 16, 1000, 99), windowed(c, 16, 1000, 15));
  EXPECT_EQ(windowed(c, 16, 1000, 0), windowed(c, 16, 1000, 1));
}

TEST(AlltoallSchedules, BruckRoundBlockCounts) {
  // Round j carries the blocks whose index (0 .. n-1) has bit j set.
  EXPECT_EQ(bruck_round_blocks(5, 0), 2u);  // 1, 3
  EXPECT_EQ(bruck_round_blocks(5, 1), 2u);  // 2, 3
  EXPECT_EQ(bruck_round_blocks(5, 2), 1u);  // 4
  EXPECT_EQ(bruck_round_blocks(6, 0), 3u);  // 1, 3, 5
  EXPECT_EQ(bruck_round_blocks(6, 2), 2u);  // 4, 5
  for (int j = 0; j < 3; ++j) EXPECT_EQ(bruck_round_blocks(8, j), 4u) << j;  // n / 2 at 2^k
  EXPECT_EQ(bruck_round_blocks(1, 0), 0u);
}

TEST(AlltoallSchedules, BruckModel) {
  Contention c = test_contention();
  // n = 4, m = 100: two rounds of 2 blocks (200 bytes, below M), copies of 2 x 4 x 100 + 2 x 400.
  const double round = (1e-4 + 200 * 1e-9) * 1.5;
  EXPECT_TRUE(same_seconds(bruck(c, 4, 100), 2 * round + 1600 * 2.5e-10));
  // A round whose packed message reaches M pays delta: n = 4, m = 40000 (80000 bytes a round).
  const double big = (1e-4 + 80000 * 1e-9) * 1.5 + 1e-3;
  EXPECT_TRUE(same_seconds(bruck(c, 4, 40000), 2 * big + 2 * (4 * 40000 + 160000) * 2.5e-10));
  EXPECT_EQ(bruck(c, 1, 100), 0.0);
  EXPECT_EQ(bruck(c, 4, 0), 0.0);
}

TEST(AlltoallSchedules, MeshGridIsTheSquarestFactorisation) {
  const std::pair<int, MeshGrid> cases[] = {{16, {4, 4}},  {12, {3, 4}},   {48, {6, 8}},
                                            {100, {10, 10}}, {1024, {32, 32}}, {8, {2, 4}},
                                            {7, {1, 7}},   {2, {1, 2}},    {1, {1, 1}},
                                            {49, {7, 7}},  {99, {9, 11}}};
  for (const auto& [n, grid] : cases) {
    const MeshGrid g = mesh_grid(n);
    EXPECT_EQ(g.rows, grid.rows) << n;
    EXPECT_EQ(g.cols, grid.cols) << n;
  }
}

TEST(AlltoallSchedules, Mesh2dModel) {
  const Contention c = test_contention();
  // n = 12 is 3 x 4. Along the row, 3 messages of 3 x 100 bytes, rho(3) = 0.7 x 2 / 14 = 0.1;
  // along the column, 2 messages of 4 x 100 bytes, rho(2) = 0.05; copies of (24 + 2 x 4) x 100.
  const double row = 1e-4 + 3 * 300 * synthetic_beta(1e-9, 1e-8, 0.1);
  const double col = 1e-4 + 2 * 400 * synthetic_beta(1e-9, 1e-8, 0.05);
  EXPECT_TRUE(same_seconds(mesh2d(c, 12, 100), row + col + 3200 * 2.5e-10));
  // A prime n is one row: all_at_once's time plus the packing and unpacking.
  EXPECT_TRUE(same_seconds(mesh2d(c, 7, 100), all_at_once(c, 7, 100) + 1400 * 2.5e-10));
  EXPECT_EQ(mesh2d(c, 1, 100), 0.0);
  EXPECT_EQ(mesh2d(c, 12, 0), 0.0);
  // What the CPU pays: 3 sends and receives of 48 B, 2 of 64 B (linear_params' o_s and o_r).
  const plogp::Params p = linear_params();
  EXPECT_TRUE(same_seconds(mesh2d_message_overheads(p, 12, 16),
                           3 * (0.2048e-6 + 0.3096e-6) + 2 * (0.2064e-6 + 0.3128e-6)));
  EXPECT_EQ(mesh2d_message_overheads(p, 1, 16), 0.0);
}

TEST(AlltoallSchedules, AFloorIsTheLongerOfARanksCpuAndItsLink) {
  // two_gap_params(): each send holds the link g_p(m) = 0.5 us + 0.8 ns m, each message costs the
  // CPU o_s + o_r = 0.5 us + 0.3 ns m. n = 12 is 3 x 4: with 100-byte blocks a rank of the mesh
  // sends 3 messages of 300 B along its row and 2 of 400 B along its column; its link is longer.
  const plogp::Params p = two_gap_params();
  const double link = 3 * line_gp(300) + 2 * line_gp(400);
  ASSERT_GT(link, mesh2d_message_overheads(p, 12, 100));
  EXPECT_TRUE(same_seconds(mesh2d_message_floor(p, 1e-9, 12, 100), link));
  EXPECT_TRUE(same_seconds(message_floor(p, 1e-9, 12, 100), 11 * line_gp(100)));
  // Bruck at n = 8: three rounds of 4 blocks, one send each.
  EXPECT_TRUE(same_seconds(bruck_message_floor(p, 1e-9, 8, 100), 3 * line_gp(400)));
  // Where the CPU costs more, its overheads are the floor, as before the link part.
  plogp::Params heavy = two_gap_params();
  for (plogp::SizePoint& point : heavy.table) {
    point.send_overhead_s *= 10;
    point.recv_overhead_s *= 10;
  }
  EXPECT_EQ(message_floor(heavy, 1e-9, 12, 100), message_overheads(heavy, 12, 100));
  EXPECT_EQ(mesh2d_message_floor(heavy, 1e-9, 12, 100), mesh2d_message_overheads(heavy, 12, 100));
  EXPECT_EQ(bruck_message_floor(heavy, 1e-9, 8, 100), bruck_message_overheads(heavy, 8, 100));
  EXPECT_EQ(message_floor(p, 1e-9, 1, 100), 0.0);
  EXPECT_EQ(mesh2d_message_floor(p, 1e-9, 12, 0), 0.0);
}

TEST(AlltoallSchedules, BestWindowFollowsTheMessageSize) {
  const Contention c = test_contention();
  // Small messages: start-ups dominate, so everything in flight at once.
  const WindowChoice small = best_window(c, 16, 16);
  EXPECT_EQ(small.window, 15);
  EXPECT_EQ(small.predicted_s, windowed(c, 16, 16, 15));
  // Large messages, rho growing with the window: the bandwidth term dominates, one at a time.
  const WindowChoice large = best_window(c, 16, 1 << 20);
  EXPECT_EQ(large.window, 1);
  // In between, a window in the middle can win; it is never worse than both ends.
  const WindowChoice mid = best_window(c, 16, 20000);
  EXPECT_LE(mid.predicted_s, windowed(c, 16, 20000, 1));
  EXPECT_LE(mid.predicted_s, windowed(c, 16, 20000, 15));
  // Contention-free (rho 0 everywhere): fewer batches always win.
  EXPECT_EQ(best_window(contention_free(linear_params()), 16, 1 << 20).window, 15);
}

TEST(AlltoallSchedules, TheMessageOverheadsFloorTheWindowedSchedules) {
  const plogp::Params p = linear_params();
  // 15 sends and 15 receives of 16 B: 15 (o_s(16) + o_r(16)) = 15 (0.2016 + 0.3032) us.
  const double floor = message_overheads(p, 16, 16);
  EXPECT_TRUE(same_seconds(floor, 15 * (0.2016e-6 + 0.3032e-6)));
  EXPECT_EQ(message_overheads(p, 1, 16), 0.0);
  EXPECT_EQ(message_overheads(p, 16, 0), 0.0);
  // Cheap start-ups: section 6's model alone puts every window below what the CPU pays, so every
  // window costs the floor and the smallest one is kept.
  Contention c = test_contention();
  c.hockney.alpha_s = 1e-7;
  ASSERT_LT(windowed(c, 16, 16, 15), floor);
  ASSERT_LT(windowed(c, 16, 16, 1), floor);
  const WindowChoice w = best_window(c, 16, 16, floor);
  EXPECT_EQ(w.predicted_s, floor);
  EXPECT_EQ(w.window, 1);
  EXPECT_LT(best_window(c, 16, 16).predicted_s, floor);  // without the floor, below the CPU's
  // Large blocks: the network term is above the floor, which changes nothing.
  const double big_floor = message_overheads(p, 16, 1 << 20);
  ASSERT_LT(big_floor, windowed(c, 16, 1 << 20, 1));
  EXPECT_EQ(best_window(c, 16, 1 << 20, big_floor).predicted_s,
            best_window(c, 16, 1 << 20).predicted_s);
}

// --- fitting the signature ---

const Hockney kGigabit{5e-5, 8.5e-9};
const Signature kGigabitSignature{4.3628, 4.93e-3, 8192};  // section 8.2

std::vector<Sample> exact_samples(const Hockney& h, const Signature& s, std::vector<int> ns,
                                  std::vector<std::uint64_t> sizes) {
  std::vector<Sample> out;
  for (int n : ns) {
    for (std::uint64_t m : sizes) out.push_back({n, m, signature_model(h, s, n, m)});
  }
  return out;
}

// Portable uniform noise in [-amplitude, amplitude]: mt19937's raw output is specified by the
// standard, the distributions are not.
void add_noise(std::vector<Sample>& samples, double amplitude, unsigned seed) {
  std::mt19937 gen(seed);
  for (Sample& s : samples) {
    const double u = static_cast<double>(gen()) / 4294967295.0;  // [0, 1]
    s.seconds *= 1.0 + amplitude * (2.0 * u - 1.0);
  }
}

const std::vector<std::uint64_t> kSizes = {256, 1024, 2048, 4096, 8192, 16384, 65536, 262144};

TEST(AlltoallFit, NoiseFreeRecoversTheSignatureExactly) {
  const auto samples = exact_samples(kGigabit, kGigabitSignature, {40}, kSizes);
  const SignatureFit fit = fit_signature(samples, kGigabit);
  ASSERT_FALSE(fit.error) << *fit.error;
  EXPECT_TRUE(within(fit.signature.gamma, 4.3628, 1e-9));
  EXPECT_TRUE(within(fit.signature.delta_s, 4.93e-3, 1e-9));
  EXPECT_EQ(fit.signature.threshold_bytes, 8192u);
  EXPECT_EQ(fit.quality.points, 8);
  EXPECT_LT(fit.quality.max_abs_rel, 1e-12);
  ASSERT_EQ(fit.predicted.size(), samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    EXPECT_TRUE(within(fit.predicted[i], samples[i].seconds, 1e-12)) << i;
  }
  // Every distinct size was tried, after "no delta"; the largest has one sample, too few.
  ASSERT_EQ(fit.candidates.size(), kSizes.size() + 1);
  EXPECT_EQ(fit.candidates.front().threshold_bytes, kNoThreshold);
  EXPECT_EQ(fit.candidates.back().rejected, "only 1 sample at or above M");
}

TEST(AlltoallFit, NoiseFreeFromSeveralProcessCounts) {
  const Signature fast_ethernet{1.0195, 8.23e-3, 2048};
  const Hockney h{60e-6, 8e-8};
  const auto samples = exact_samples(h, fast_ethernet, {4, 9, 24}, {512, 1024, 2048, 8192});
  const SignatureFit fit = fit_signature(samples, h);
  ASSERT_FALSE(fit.error) << *fit.error;
  EXPECT_TRUE(within(fit.signature.gamma, 1.0195, 1e-9));
  EXPECT_TRUE(within(fit.signature.delta_s, 8.23e-3, 1e-9));
  EXPECT_EQ(fit.signature.threshold_bytes, 2048u);
}

TEST(AlltoallFit, DeltaAtTheSmallestSizeIsAnAffineFit) {
  // M at the first measured size: delta applies to every sample (Fast Ethernet's "affine" look).
  const Signature affine{1.2, 2e-4, 256};
  const auto samples = exact_samples(kGigabit, affine, {16}, kSizes);
  const SignatureFit fit = fit_signature(samples, kGigabit);
  ASSERT_FALSE(fit.error) << *fit.error;
  EXPECT_TRUE(within(fit.signature.gamma, 1.2, 1e-9));
  EXPECT_TRUE(within(fit.signature.delta_s, 2e-4, 1e-9));
  EXPECT_EQ(fit.signature.threshold_bytes, 256u);
}

TEST(AlltoallFit, NoisyDataRecoversWithinAFewPercent) {
  auto samples = exact_samples(kGigabit, kGigabitSignature, {16, 24, 40}, kSizes);
  add_noise(samples, 0.03, 12345);
  const SignatureFit fit = fit_signature(samples, kGigabit);
  ASSERT_FALSE(fit.error) << *fit.error;
  EXPECT_TRUE(within(fit.signature.gamma, 4.3628, 0.03));
  EXPECT_TRUE(within(fit.signature.delta_s, 4.93e-3, 0.03));
  EXPECT_EQ(fit.signature.threshold_bytes, 8192u);
  EXPECT_LT(fit.quality.rms_rel, 0.03);
  EXPECT_LT(fit.quality.max_abs_rel, 0.06);
}

TEST(AlltoallFit, NoDeltaInTheDataGivesNoThreshold) {
  // Myrinet (section 8.3): gamma = 2.49754 and no start-up cost worth a delta.
  const Signature myrinet{2.49754, 0.0, kNoThreshold};
  const Hockney h{8e-6, 4e-9};
  const auto exact = exact_samples(h, myrinet, {24}, kSizes);
  const SignatureFit fit = fit_signature(exact, h);
  ASSERT_FALSE(fit.error) << *fit.error;
  EXPECT_TRUE(within(fit.signature.gamma, 2.49754, 1e-9));
  EXPECT_EQ(fit.signature.threshold_bytes, kNoThreshold);
  EXPECT_EQ(fit.signature.delta_s, 0.0);
  // With noise, AIC keeps a delta from being invented out of it.
  for (unsigned seed : {1u, 2u, 3u, 4u, 5u}) {
    auto noisy = exact_samples(h, myrinet, {16, 24}, kSizes);
    add_noise(noisy, 0.03, seed);
    const SignatureFit n = fit_signature(noisy, h);
    ASSERT_FALSE(n.error) << *n.error;
    EXPECT_EQ(n.signature.threshold_bytes, kNoThreshold) << "seed " << seed;
    EXPECT_TRUE(within(n.signature.gamma, 2.49754, 0.03)) << "seed " << seed;
  }
}

TEST(AlltoallFit, ImpossibleFitsSayWhy) {
  const auto good = exact_samples(kGigabit, kGigabitSignature, {8}, {1024, 8192, 65536, 262144});
  const auto error_of = [](std::vector<Sample> s, const Hockney& h) {
    const SignatureFit fit = fit_signature(s, h);
    return fit.error.value_or("");
  };
  EXPECT_EQ(error_of({good.begin(), good.begin() + 3}, kGigabit),
            "3 samples; the fit needs at least 4 (gamma, delta and M from four points at least, "
            "as in the paper)");
  EXPECT_EQ(error_of({}, kGigabit),
            "0 samples; the fit needs at least 4 (gamma, delta and M from four points at least, "
            "as in the paper)");
  auto zero_time = good;
  zero_time[2].seconds = 0.0;
  EXPECT_EQ(error_of(zero_time, kGigabit),
            "sample 3 (n = 8, m = 65536 bytes) has time 0 s; times must be finite and > 0");
  auto one_rank = good;
  one_rank[0].n = 1;
  EXPECT_EQ(error_of(one_rank, kGigabit),
            "sample 1 has n = 1; an All-to-All to fit needs n >= 2");
  const auto same_size = exact_samples(kGigabit, kGigabitSignature, {4, 8, 16, 32}, {4096});
  EXPECT_EQ(error_of(same_size, kGigabit),
            "every sample has m = 4096 bytes; measure at least two sizes, or gamma and delta "
            "cannot be told apart");
  EXPECT_NE(error_of(good, Hockney{-1.0, 1e-9}).find("must be finite numbers >= 0"),
            std::string::npos);
  EXPECT_TRUE(error_of(good, kGigabit).empty());
}

// --- fitting rho ---

std::vector<Sample> windowed_samples(const Contention& c, double rho, int window) {
  std::vector<Sample> out;
  for (int n : {8, 16, 24}) {
    for (std::uint64_t m : {1024ULL, 65536ULL, 1048576ULL}) {
      const int k = window == 0 ? n - 1 : std::min(window, n - 1);
      const double batches = std::ceil(static_cast<double>(n - 1) / k);
      const double beta =
          synthetic_beta(c.beta_free_s_per_byte, c.beta_contention_s_per_byte, rho);
      out.push_back({n, m, batches * c.hockney.alpha_s + (n - 1) * static_cast<double>(m) * beta});
    }
  }
  return out;
}

TEST(AlltoallFitRho, RecoversAKnownRho) {
  const Contention c = test_contention();
  EXPECT_TRUE(within(fit_rho(windowed_samples(c, 0.37, 4), c, 4), 0.37, 1e-9));
  EXPECT_TRUE(within(fit_rho(windowed_samples(c, 0.8, 0), c, 0), 0.8, 1e-9));
  auto noisy = windowed_samples(c, 0.5, 0);
  add_noise(noisy, 0.02, 7);
  EXPECT_TRUE(within(fit_rho(noisy, c, 0), 0.5, 0.1));
}

TEST(AlltoallFitRho, ClampedAndUndetermined) {
  Contention c = test_contention();
  // Slower than beta_C everywhere: rho would exceed 1.
  auto slow = windowed_samples(c, 1.0, 0);
  for (Sample& s : slow) s.seconds *= 3.0;
  EXPECT_EQ(fit_rho(slow, c, 0), 1.0);
  // Faster than beta_F: rho would be negative.
  auto fast = windowed_samples(c, 0.0, 0);
  for (Sample& s : fast) s.seconds *= 0.5;
  EXPECT_EQ(fit_rho(fast, c, 0), 0.0);
  // beta_C == beta_F: rho has no effect and is reported as 0.
  c.beta_contention_s_per_byte = c.beta_free_s_per_byte;
  EXPECT_EQ(fit_rho(slow, c, 0), 0.0);
  EXPECT_EQ(fit_rho({}, c, 0), 0.0);
}

}  // namespace
}  // namespace collsel::models::alltoall

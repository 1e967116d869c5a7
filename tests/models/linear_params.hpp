// Test parameters whose tables are sampled from straight lines, so interpolation is exact and
// every expected value can be computed by hand from the lines:
//   L = 5 us, g(m) = 1 us + m ns, o_s(m) = 0.2 us + 0.1 m ns, o_r(m) = 0.3 us + 0.2 m ns.
// g differs per size, so a model that passes the wrong size to g fails its test.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>

#include "models/plogp/params.hpp"

namespace collsel::models::plogp::testing {

inline constexpr double kL = 5e-6;

inline double line_g(std::uint64_t m) { return 1e-6 + static_cast<double>(m) * 1e-9; }

inline Params linear_params() {
  Params p;
  p.latency_s = kL;
  for (std::uint64_t m : {0ULL, 1ULL, 1024ULL, 65536ULL, 1048576ULL}) {
    const double x = static_cast<double>(m);
    p.table.push_back({m, 1e-6 + x * 1e-9, 2e-7 + x * 1e-10, 3e-7 + x * 2e-10});
  }
  return p;
}

// linear_params() with a posted-gap column (docs/MODELS.md, "Two gaps"): g_p(m) = 0.5 us + m x
// 0.8 ns, so L_p = L + g(0) - g_p(0) = 5.5 us.
inline constexpr double kLp = 5.5e-6;

inline double line_gp(std::uint64_t m) { return 5e-7 + static_cast<double>(m) * 8e-10; }

inline Params two_gap_params() {
  Params p = linear_params();
  for (SizePoint& point : p.table) point.posted_gap_s = line_gp(point.bytes);
  p.posted_gaps = true;
  return p;
}

// two_gap_params() with a fan-out share column (docs/MODELS.md, "Shared fan-out") of sigma at
// every size.
inline Params shared_fanout_params(double sigma) {
  Params p = two_gap_params();
  for (SizePoint& point : p.table) point.fanout_share = sigma;
  p.fanout_shares = true;
  return p;
}

// two_gap_params() with the two columns of docs/MODELS.md, "Two receives ahead": the pipeline gap
// g_2(m) = 0.8 us + m x 0.9 ns (between g_p and g) and a pair share of tau at every size.
inline double line_g2(std::uint64_t m) { return 8e-7 + static_cast<double>(m) * 9e-10; }

inline Params two_ahead_params(double tau) {
  Params p = two_gap_params();
  for (SizePoint& point : p.table) {
    point.pipeline_gap_s = line_g2(point.bytes);
    point.pair_share = tau;
  }
  p.pipeline_gaps = true;
  p.pair_shares = true;
  return p;
}

// two_gap_params() with a one-way column (docs/MODELS.md, "One-way time") of L_p + g_p(m) +
// extra at every size: L_p(m) = L_p + extra.
inline Params one_way_params(double extra) {
  Params p = two_gap_params();
  for (SizePoint& point : p.table) point.one_way_s = kLp + line_gp(point.bytes) + extra;
  p.one_way_times = true;
  return p;
}

// Equal up to rounding (relative 1e-9): any wrong term or wrong size moves a result by far more.
inline ::testing::AssertionResult same_seconds(double actual, double expected) {
  const double tolerance = 1e-9 * std::fabs(expected) + 1e-18;
  if (std::fabs(actual - expected) <= tolerance) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << actual << " s, expected " << expected << " s";
}

}  // namespace collsel::models::plogp::testing

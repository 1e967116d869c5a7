#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>

#include "linear_params.hpp"
#include "models/plogp/bcast.hpp"
#include "models/plogp/segment.hpp"

namespace collsel::models::plogp {
namespace {

using testing::linear_params;
using testing::same_seconds;

// The sizes best_segment evaluates, recorded through the model it is given.
std::set<std::uint64_t> candidates(const Params& p, std::uint64_t m, std::uint64_t unit) {
  std::set<std::uint64_t> seen;
  (void)best_segment(p, m, unit, [&](std::uint64_t s) {
    seen.insert(s);
    return 1.0;
  });
  return seen;
}

TEST(PlogpSegment, CandidateSetOfASmallMessage) {
  // m = 10, unit = 4 (table sizes 0, 1, 1024, 65536, 1048576):
  //   k = 1..2: round_up(10, 4) = 12 > m (dropped), round_up(5, 4) = 8;
  //   powers: 4, 8 (16 > m); table: 0 -> 0 < unit (dropped), 1 -> 4, the rest > m; plus m = 10.
  EXPECT_EQ(candidates(linear_params(), 10, 4), (std::set<std::uint64_t>{4, 8, 10}));
}

TEST(PlogpSegment, UnitZeroIsOne) {
  // m = 3, unit 1: k = 1..3 gives 3, 2, 1; powers 1, 2; table 1.
  EXPECT_EQ(candidates(linear_params(), 3, 0), (std::set<std::uint64_t>{1, 2, 3}));
}

TEST(PlogpSegment, MessageSmallerThanTheUnitIsOneSegment) {
  EXPECT_EQ(candidates(linear_params(), 5, 8), (std::set<std::uint64_t>{5}));
}

TEST(PlogpSegment, EveryCandidateIsAMultipleOfTheUnitOrTheMessage) {
  const std::uint64_t m = 1000003;  // prime: no multiple of the unit equals it
  const std::uint64_t unit = 24;
  const auto seen = candidates(linear_params(), m, unit);
  EXPECT_TRUE(seen.count(m));
  EXPECT_TRUE(seen.count(24));        // unit x 2^0
  EXPECT_TRUE(seen.count(1024 + 8));  // the table size 1024 rounded up to 24: 43 x 24 = 1032
  EXPECT_TRUE(seen.count(65544));     // 65536 rounded up: 2731 x 24
  for (std::uint64_t s : seen) {
    EXPECT_TRUE(s == m || (s % unit == 0 && s >= unit && s < m)) << "s = " << s;
  }
  // k runs to min(m / unit, 4096): every k up to 64, then about 3 % apart (about 140 counts),
  // plus 16 powers of two up to m and table sizes.
  EXPECT_LE(seen.size(), 300u);
  EXPECT_TRUE(seen.count(15648));   // k = 64: 15626 -> 652 x 24
  EXPECT_FALSE(seen.count(15408));  // k = 65 (15385 -> 642 x 24) is skipped: step 64 / 32 = 2
  EXPECT_TRUE(seen.count(15168));   // k = 66: 15152 -> 632 x 24
  EXPECT_TRUE(seen.count(24 * 11));  // ceil(m / 4096) = 245 -> 11 x 24 = 264
}

TEST(PlogpSegment, MinimumComputedByHand) {
  // g(m) = 1e-6 + m x 1e-7 (bandwidth dominates), L = 5e-6; bcast.chain_segmented with P = 8,
  // m = 64, unit 16: candidates 16, 32, 64 (k = 1..4 gives 64, 32, 32, 16; powers 16, 32, 64;
  // table size 1 -> 16). T(s) = 7 (g(s) + L) + g(s) (k - 1):
  //   s = 64, k = 1: g = 7.4e-6 -> 7 x 12.4e-6            = 86.8e-6
  //   s = 32, k = 2: g = 4.2e-6 -> 7 x 9.2e-6 + 4.2e-6    = 68.6e-6
  //   s = 16, k = 4: g = 2.6e-6 -> 7 x 7.6e-6 + 3 x 2.6e-6 = 61.0e-6  <- minimum
  Params p;
  p.latency_s = 5e-6;
  for (std::uint64_t m : {0ULL, 1ULL, 1024ULL}) {
    p.table.push_back({m, 1e-6 + static_cast<double>(m) * 1e-7, 0.0, 0.0});
  }
  const auto model = [&](std::uint64_t s) { return bcast_chain_segmented(p, 8, 64, s); };
  EXPECT_TRUE(same_seconds(model(64), 86.8e-6));
  EXPECT_TRUE(same_seconds(model(32), 68.6e-6));
  const SegmentChoice c = best_segment(p, 64, 16, model);
  EXPECT_EQ(c.segment_bytes, 16u);
  EXPECT_TRUE(same_seconds(c.predicted_s, 61.0e-6));
}

TEST(PlogpSegment, LatencyBoundNetworkKeepsOneSegment) {
  // On linear_params() extra segments cost 1 us each and save 1 ns per byte: for m = 1000 and
  // P = 2, T(s) = k g(s) + L >= 1e-6 k + 1e-6 + L, least at k = 1: 2e-6 + 5e-6.
  const Params p = linear_params();
  const SegmentChoice c = best_segment(
      p, 1000, 8, [&](std::uint64_t s) { return bcast_chain_segmented(p, 2, 1000, s); });
  EXPECT_EQ(c.segment_bytes, 1000u);
  EXPECT_TRUE(same_seconds(c.predicted_s, 7e-6));
}

TEST(PlogpSegment, TiesGoToTheLargerSegment) {
  const Params p = linear_params();
  const SegmentChoice flat = best_segment(p, 64, 16, [](std::uint64_t) { return 1.0; });
  EXPECT_EQ(flat.segment_bytes, 64u);
  const SegmentChoice two =
      best_segment(p, 64, 16, [](std::uint64_t s) { return s == 16 || s == 32 ? 1.0 : 2.0; });
  EXPECT_EQ(two.segment_bytes, 32u);
  EXPECT_EQ(two.predicted_s, 1.0);
}

TEST(PlogpSegment, ExactMinimumAmongManyCandidates) {
  // |s - 4096| is 0 only at 4096, a candidate both as 2^12 and as 65536 / 16.
  const SegmentChoice c = best_segment(linear_params(), 65536, 8, [](std::uint64_t s) {
    return s > 4096 ? static_cast<double>(s - 4096) : static_cast<double>(4096 - s);
  });
  EXPECT_EQ(c.segment_bytes, 4096u);
  EXPECT_EQ(c.predicted_s, 0.0);
}

TEST(PlogpSegment, SparseSearchIsWithinAFractionOfAPercentOfExhaustive) {
  // The search skips segment counts past 64; against every multiple of the unit, its optimum must
  // stay within 0.5 % for the three segmented Broadcast models.
  const Params p = linear_params();
  const std::uint64_t unit = 8;
  for (const int P : {3, 8, 16, 64}) {
    for (const std::uint64_t m : {std::uint64_t{4096}, std::uint64_t{100000},
                                  std::uint64_t{1} << 20}) {
      using Model = double (*)(const Params&, int, std::uint64_t, std::uint64_t);
      for (const Model model : {Model{&bcast_chain_segmented}, Model{&bcast_binomial_segmented},
                                Model{&bcast_flat_segmented}}) {
        const std::function<double(std::uint64_t)> f = [&](std::uint64_t s) {
          return model(p, P, m, s);
        };
        double exhaustive = f(m);
        for (std::uint64_t s = unit; s < m; s += unit) exhaustive = std::min(exhaustive, f(s));
        const SegmentChoice c = best_segment(p, m, unit, f);
        EXPECT_LE(c.predicted_s, exhaustive * 1.005) << "P " << P << " m " << m;
        EXPECT_GE(c.predicted_s, exhaustive) << "P " << P << " m " << m;
      }
    }
  }
}

TEST(PlogpSegment, EmptyMessage) {
  const SegmentChoice c =
      best_segment(linear_params(), 0, 8, [](std::uint64_t s) { return s == 0 ? 0.5 : 9.0; });
  EXPECT_EQ(c.segment_bytes, 0u);
  EXPECT_EQ(c.predicted_s, 0.5);
}

TEST(PlogpSegment, Deterministic) {
  const Params p = linear_params();
  const auto model = [&](std::uint64_t s) { return bcast_binomial_segmented(p, 7, 1 << 20, s); };
  const SegmentChoice a = best_segment(p, 1 << 20, 8, model);
  const SegmentChoice b = best_segment(p, 1 << 20, 8, model);
  EXPECT_EQ(a.segment_bytes, b.segment_bytes);
  EXPECT_EQ(a.predicted_s, b.predicted_s);
}

}  // namespace
}  // namespace collsel::models::plogp

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "linear_params.hpp"
#include "models/plogp/params.hpp"

namespace collsel::models::plogp {
namespace {

using testing::linear_params;
using testing::same_seconds;

Params gap_table(std::initializer_list<std::pair<std::uint64_t, double>> points,
                 std::optional<std::uint64_t> eager = std::nullopt) {
  Params p;
  p.latency_s = 1.0;
  p.eager_limit_bytes = eager;
  for (const auto& [bytes, gap] : points) p.table.push_back({bytes, gap, 0.0, 0.0});
  return p;
}

TEST(PlogpParams, ExactAtTablePoints) {
  const Params p = linear_params();
  EXPECT_EQ(p.gap_s(0), 1e-6);
  EXPECT_EQ(p.gap_s(1), 1e-6 + 1e-9);
  EXPECT_EQ(p.gap_s(1024), 1e-6 + 1024 * 1e-9);
  EXPECT_EQ(p.send_overhead_s(65536), 2e-7 + 65536 * 1e-10);
  EXPECT_EQ(p.recv_overhead_s(1048576), 3e-7 + 1048576 * 2e-10);
}

TEST(PlogpParams, EachAccessorReadsItsOwnColumn) {
  const Params p = linear_params();
  EXPECT_TRUE(same_seconds(p.gap_s(512), 1.512e-6));            // 1e-6 + 512e-9
  EXPECT_TRUE(same_seconds(p.send_overhead_s(512), 2.512e-7));  // 2e-7 + 512e-10
  EXPECT_TRUE(same_seconds(p.recv_overhead_s(512), 4.024e-7));  // 3e-7 + 1024e-10
}

TEST(PlogpParams, AnOverheadPastOneAndAHalfTimesTheSmallestIsAWaitNotCpuWork) {
  // linear_params(): o_s(m) = 0.2 us + m x 0.1 ns, o_r(m) = 0.3 us + m x 0.2 ns.
  const Params p = linear_params();
  EXPECT_FALSE(p.send_waits(512));                            // 0.2512 us <= 0.3 us
  EXPECT_TRUE(p.send_waits(1024));                            // 0.3024 us > 0.3 us
  EXPECT_TRUE(same_seconds(p.send_cpu_s(512), 2.512e-7));     // the send's own overhead
  EXPECT_TRUE(same_seconds(p.send_cpu_s(65536), 2e-7));       // o_s(0): the rest was a wait
  EXPECT_TRUE(same_seconds(p.recv_cpu_s(512), 4.024e-7));     // <= 0.45 us
  EXPECT_TRUE(same_seconds(p.recv_cpu_s(1024), 3e-7));        // 0.5048 us > 0.45 us: o_r(0)
}

TEST(PlogpParams, ABurstOfWaitingSendsIsPacedByTheLink) {
  const Params p = linear_params();
  // 64 KiB sends wait for their transfers (o_s = 6.75 us): at 0.5 ns per byte the link carries
  // one in 32.768 us, where g(65536) = 66.536 us; a link slower than g keeps g, an unknown one
  // (0) too.
  EXPECT_TRUE(same_seconds(p.burst_gap_s(65536, 0.5e-9), 32.768e-6));
  EXPECT_TRUE(same_seconds(p.burst_gap_s(65536, 2e-9), 66.536e-6));
  EXPECT_TRUE(same_seconds(p.burst_gap_s(65536, 0.0), 66.536e-6));
  // 100-byte sends are posted (o_s(100) = 0.21 us): the burst keeps g(100), whatever the link.
  EXPECT_TRUE(same_seconds(p.burst_gap_s(100, 0.5e-9), 1.1e-6));
  // A link faster than the CPU's post: the burst is paced by o_s(0).
  EXPECT_TRUE(same_seconds(p.burst_gap_s(65536, 1e-15), 2e-7));
}

TEST(PlogpParams, ThePostedGapReadsItsOwnColumnAndItsLatencyKeepsTheOneWayTime) {
  const Params p = testing::two_gap_params();
  EXPECT_TRUE(same_seconds(p.posted_gap_s(512), 9.096e-7));  // 5e-7 + 512 x 8e-10
  EXPECT_TRUE(same_seconds(p.gap_s(512), 1.512e-6));         // the stream gap is unchanged
  // L_p + g_p(0) = L + g(0): 5.5 us + 0.5 us = 5 us + 1 us.
  EXPECT_TRUE(same_seconds(p.posted_latency_s(), testing::kLp));
  EXPECT_EQ(p.latency_s, testing::kL);
}

TEST(PlogpParams, WithoutAPostedColumnThePostedPairIsTheStreamPair) {
  Params p = linear_params();
  for (SizePoint& point : p.table) point.posted_gap_s = 123.0;  // ignored: not measured
  EXPECT_EQ(p.posted_gap_s(512), p.gap_s(512));
  EXPECT_EQ(p.posted_gap_s(1 << 22), p.gap_s(1 << 22));
  EXPECT_EQ(p.posted_latency_s(), p.latency_s);
}

TEST(PlogpParams, TheFanoutShareIsAFractionAndZeroWithoutItsColumn) {
  Params p = linear_params();
  p.table[1].fanout_share = 0.5;
  EXPECT_EQ(p.fanout_share(p.table[1].bytes), 0.0);  // not measured: seed 001's formulas
  p.fanout_shares = true;
  EXPECT_EQ(p.fanout_share(p.table[1].bytes), 0.5);
  EXPECT_EQ(p.fanout_share(0), 0.0);
  // Extrapolated above the table like the times, but never past 1.
  for (SizePoint& point : p.table) point.fanout_share = 0.9;
  p.table.back().fanout_share = 1.0;
  EXPECT_EQ(p.fanout_share(std::uint64_t{1} << 40), 1.0);
  EXPECT_FALSE(p.invalid_reason());
  p.table.back().fanout_share = 1.5;
  ASSERT_TRUE(p.invalid_reason());
  EXPECT_NE(p.invalid_reason()->find("fanout_share"), std::string::npos) << *p.invalid_reason();
}

TEST(PlogpParams, ThePipelineGapAndThePairShareReadTheirColumnsOnlyWhenMeasured) {
  Params p = linear_params();
  for (SizePoint& point : p.table) {
    point.pipeline_gap_s = 123.0;
    point.pair_share = 0.5;
  }
  // Not measured: the stream gap and no share, seed 001's pipeline.
  EXPECT_EQ(p.pipeline_gap_s(512), p.gap_s(512));
  EXPECT_EQ(p.pair_share(512), 0.0);
  p.pipeline_gaps = true;
  p.pair_shares = true;
  EXPECT_EQ(p.pipeline_gap_s(512), 123.0);
  EXPECT_EQ(p.pair_share(512), 0.5);
  EXPECT_FALSE(p.invalid_reason());
  p.table[2].pair_share = -0.1;
  ASSERT_TRUE(p.invalid_reason());
  EXPECT_NE(p.invalid_reason()->find("pair_share at 1024 bytes"), std::string::npos)
      << *p.invalid_reason();
  p.table[2].pair_share = 0.5;
  p.table[3].pipeline_gap_s = -1.0;
  ASSERT_TRUE(p.invalid_reason());
  EXPECT_NE(p.invalid_reason()->find("pipeline_gap_s at 65536 bytes"), std::string::npos)
      << *p.invalid_reason();
}

TEST(PlogpParams, ThePostedLatencyAtASizeIsTheOneWayTimeLessThePostedGap) {
  Params p = testing::one_way_params(1e-7);
  EXPECT_TRUE(same_seconds(p.posted_latency_s(512), testing::kLp + 1e-7));
  EXPECT_TRUE(same_seconds(p.posted_latency_s(1 << 20), testing::kLp + 1e-7));
  EXPECT_TRUE(same_seconds(p.posted_latency_s(), testing::kLp));  // the size-free L_p stays
  // Never below 0; without the column the constant L_p.
  for (SizePoint& point : p.table) point.one_way_s = 0.0;
  EXPECT_EQ(p.posted_latency_s(512), 0.0);
  p.one_way_times = false;
  EXPECT_TRUE(same_seconds(p.posted_latency_s(512), testing::kLp));
}

TEST(PlogpParams, ThePostedLatencyIsNeverNegative) {
  Params p = testing::two_gap_params();
  p.table.front().posted_gap_s = 1.0;  // g_p(0) far above L + g(0)
  EXPECT_EQ(p.posted_latency_s(), 0.0);
}

TEST(PlogpParams, InsideBelowAndAboveTheTable) {
  // Points (8, 1), (16, 3), (32, 4).
  const Params p = gap_table({{8, 1.0}, {16, 3.0}, {32, 4.0}});
  EXPECT_DOUBLE_EQ(p.gap_s(0), 1.0);  // below: clamped to the first point
  EXPECT_DOUBLE_EQ(p.gap_s(7), 1.0);
  EXPECT_DOUBLE_EQ(p.gap_s(8), 1.0);
  EXPECT_DOUBLE_EQ(p.gap_s(12), 2.0);  // 1 + (3 - 1) x 4/8
  EXPECT_DOUBLE_EQ(p.gap_s(16), 3.0);
  EXPECT_DOUBLE_EQ(p.gap_s(24), 3.5);  // 3 + (4 - 3) x 8/16
  EXPECT_DOUBLE_EQ(p.gap_s(32), 4.0);
  EXPECT_DOUBLE_EQ(p.gap_s(64), 6.0);  // above: 4 + (1/16) x 32, slope of the last two points
}

TEST(PlogpParams, ExtrapolationNeverSlopesDown) {
  // The last two points fall (3 then 1): above the table the value stays at 1.
  const Params p = gap_table({{8, 3.0}, {16, 1.0}});
  EXPECT_DOUBLE_EQ(p.gap_s(12), 2.0);  // inside, the fall is kept: 3 - 2 x 4/8
  EXPECT_DOUBLE_EQ(p.gap_s(32), 1.0);
  EXPECT_DOUBLE_EQ(p.gap_s(1u << 30), 1.0);
}

TEST(PlogpParams, SinglePointTableIsFlat) {
  const Params p = gap_table({{100, 2.5}});
  EXPECT_DOUBLE_EQ(p.gap_s(0), 2.5);
  EXPECT_DOUBLE_EQ(p.gap_s(100), 2.5);
  EXPECT_DOUBLE_EQ(p.gap_s(1u << 20), 2.5);
}

TEST(PlogpParams, NeverNegative) {
  const Params p = gap_table({{0, -1.0}, {10, 1.0}});
  EXPECT_DOUBLE_EQ(p.gap_s(0), 0.0);  // a negative measurement reads as 0
  EXPECT_DOUBLE_EQ(p.gap_s(5), 0.0);  // -1 + 2 x 5/10
  EXPECT_DOUBLE_EQ(p.gap_s(10), 1.0);
}

// Eager limit E = 16000. Below: (1000, 1), (8000, 2), (16000, 4). Above: (17000, 10),
// (33000, 14). Interpolating across E would give 4.006 at 16001 (a ramp); the rule keeps a step.
Params eager_table() {
  return gap_table({{1000, 1.0}, {8000, 2.0}, {16000, 4.0}, {17000, 10.0}, {33000, 14.0}}, 16000);
}

TEST(PlogpParams, EagerLimitStaysAStep) {
  const Params p = eager_table();
  EXPECT_DOUBLE_EQ(p.gap_s(16000), 4.0);   // m <= E: the lower side only
  EXPECT_DOUBLE_EQ(p.gap_s(16001), 10.0);  // m > E: below the first upper point, clamped to it
  EXPECT_DOUBLE_EQ(p.gap_s(17000), 10.0);
}

TEST(PlogpParams, EagerLimitInterpolatesWithinEachSide) {
  const Params p = eager_table();
  EXPECT_DOUBLE_EQ(p.gap_s(500), 1.0);     // below the table
  EXPECT_DOUBLE_EQ(p.gap_s(12000), 3.0);   // 2 + (4 - 2) x 4000/8000
  EXPECT_DOUBLE_EQ(p.gap_s(25000), 12.0);  // 10 + (14 - 10) x 8000/16000
  EXPECT_DOUBLE_EQ(p.gap_s(41000), 16.0);  // above: 14 + (4/16000) x 8000, upper side's slope
}

TEST(PlogpParams, EagerLimitBetweenTablePoints) {
  // E = 16384 lies between 16000 and 17000: sizes up to E extrapolate the lower side.
  Params p = eager_table();
  p.eager_limit_bytes = 16384;
  EXPECT_DOUBLE_EQ(p.gap_s(16200), 4.05);   // 4 + (2/8000) x 200
  EXPECT_DOUBLE_EQ(p.gap_s(16384), 4.096);  // 4 + (2/8000) x 384
  EXPECT_DOUBLE_EQ(p.gap_s(16385), 10.0);
}

TEST(PlogpParams, SidesWithOnePoint) {
  // Lower side: (1000, 1) alone; its extension borrows the whole table's last slope, 4/16000.
  const Params low = gap_table({{1000, 1.0}, {17000, 10.0}, {33000, 14.0}}, 16000);
  EXPECT_DOUBLE_EQ(low.gap_s(500), 1.0);
  EXPECT_DOUBLE_EQ(low.gap_s(9000), 3.0);  // 1 + (4/16000) x 8000
  EXPECT_DOUBLE_EQ(low.gap_s(16001), 10.0);
  // Upper side: (17000, 11) alone; the whole table's last slope is (11 - 2)/(17000 - 8000).
  const Params high = gap_table({{1000, 1.0}, {8000, 2.0}, {17000, 11.0}}, 16000);
  EXPECT_DOUBLE_EQ(high.gap_s(16500), 11.0);        // clamped below the lone point
  EXPECT_DOUBLE_EQ(high.gap_s(20000), 14.0);        // 11 + (9/9000) x 3000
  EXPECT_DOUBLE_EQ(high.gap_s(16000), 22.0 / 7.0);  // lower side extrapolated: 2 + (1/7000) x 8000
}

TEST(PlogpParams, EmptySideFallsBackToTheWholeTable) {
  // E above every point: sizes above E have no side of their own.
  const Params above = gap_table({{1000, 1.0}, {8000, 2.0}, {16000, 4.0}}, 100000);
  EXPECT_DOUBLE_EQ(above.gap_s(200000), 50.0);  // 4 + (2/8000) x 184000
  // E below every point: sizes up to E use the whole table, clamped below it.
  const Params below = gap_table({{1000, 1.0}, {8000, 2.0}, {16000, 4.0}}, 500);
  EXPECT_DOUBLE_EQ(below.gap_s(100), 1.0);
  EXPECT_DOUBLE_EQ(below.gap_s(12000), 3.0);
}

TEST(PlogpParams, ValidParamsHaveNoReason) {
  EXPECT_EQ(linear_params().invalid_reason(), std::nullopt);
  Params zero = gap_table({{0, 0.0}});
  zero.latency_s = 0.0;
  EXPECT_EQ(zero.invalid_reason(), std::nullopt);
}

TEST(PlogpParams, InvalidReasons) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();

  Params empty;
  EXPECT_EQ(empty.invalid_reason(), "the table of message sizes is empty");

  Params p = linear_params();
  p.latency_s = -1e-6;
  EXPECT_EQ(p.invalid_reason(), "latency_s is -1e-06 (must be finite and >= 0)");
  p.latency_s = nan;
  EXPECT_EQ(p.invalid_reason(), "latency_s is nan (must be finite and >= 0)");

  p = linear_params();
  p.table[2].bytes = 1;
  EXPECT_EQ(p.invalid_reason(),
            "sizes are not strictly increasing: entry 2 (1 bytes) follows 1 bytes");
  p.table[2].bytes = 0;
  EXPECT_EQ(p.invalid_reason(),
            "sizes are not strictly increasing: entry 2 (0 bytes) follows 1 bytes");

  p = linear_params();
  p.table[1].gap_s = -1.0;
  EXPECT_EQ(p.invalid_reason(), "gap_s at 1 bytes is -1 (must be finite and >= 0)");
  p = linear_params();
  p.table[3].send_overhead_s = nan;
  EXPECT_EQ(p.invalid_reason(), "send_overhead_s at 65536 bytes is nan (must be finite and >= 0)");
  p = linear_params();
  p.table[4].recv_overhead_s = inf;
  EXPECT_EQ(p.invalid_reason(),
            "recv_overhead_s at 1048576 bytes is inf (must be finite and >= 0)");
}

}  // namespace
}  // namespace collsel::models::plogp

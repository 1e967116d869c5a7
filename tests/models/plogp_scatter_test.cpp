#include <gtest/gtest.h>

#include <cstdint>

#include "linear_params.hpp"
#include "models/plogp/scatter.hpp"

// Hand-computed values on linear_params(): L = 5e-6 and g(m) = 1e-6 + m x 1e-9, so with blocks of
// m = 1000 bytes g(j m) = (1 + j) e-6: g(1000) = 2e-6, g(2000) = 3e-6, g(4000) = 5e-6.
namespace collsel::models::plogp {
namespace {

using testing::linear_params;
using testing::same_seconds;

class PlogpScatter : public ::testing::Test {
 protected:
  const Params p = linear_params();
};

TEST_F(PlogpScatter, Flat) {
  EXPECT_TRUE(same_seconds(scatter_flat(p, 3, 1000), 9e-6));   // 2 x 2e-6 + 5e-6
  EXPECT_TRUE(same_seconds(scatter_flat(p, 4, 1000), 11e-6));  // 3 x 2e-6 + 5e-6
  EXPECT_TRUE(same_seconds(scatter_flat(p, 7, 1000), 17e-6));  // 6 x 2e-6 + 5e-6
}

TEST_F(PlogpScatter, AFlatBurstOfWaitingSendsIsPacedByTheLink) {
  // 64 KiB blocks, whose sends wait for their transfers (o_s(65536) = 6.75 us > 1.5 o_s(0)): the
  // next block's handshake overlaps the current transfer, so with the link's 0.5 ns per byte the
  // root sends one every 32.768 us, not every g(65536) = 66.536 us. SMPI's gige, P = 16: 8.66 ms
  // measured, 15 x alpha m = 8.63 ms, where 15 g_p(m) = 12.5 ms.
  EXPECT_TRUE(same_seconds(scatter_flat(p, 4, 65536, 0.5e-9), 3 * 32.768e-6 + 5e-6));
  EXPECT_TRUE(same_seconds(scatter_flat(p, 4, 65536), 3 * 66.536e-6 + 5e-6));
  // Blocks whose sends are posted keep (P - 1) g(m) + L.
  EXPECT_TRUE(same_seconds(scatter_flat(p, 4, 100, 0.5e-9), 3 * 1.1e-6 + 5e-6));
}

TEST_F(PlogpScatter, Chain) {
  // sum_{j=1}^{P-1} g(j m) + (P - 1) L
  EXPECT_TRUE(same_seconds(scatter_chain(p, 2, 1000), 7e-6));   // 2e-6 + 5e-6
  EXPECT_TRUE(same_seconds(scatter_chain(p, 3, 1000), 15e-6));  // (2 + 3) e-6 + 2 x 5e-6
  EXPECT_TRUE(same_seconds(scatter_chain(p, 4, 1000), 24e-6));  // (2 + 3 + 4) e-6 + 15e-6
  EXPECT_TRUE(same_seconds(scatter_chain(p, 5, 1000), 34e-6));  // (2 + 3 + 4 + 5) e-6 + 20e-6
  // (2 + 3 + 4 + 5 + 6 + 7) e-6 + 6 x 5e-6
  EXPECT_TRUE(same_seconds(scatter_chain(p, 7, 1000), 57e-6));
}

TEST_F(PlogpScatter, BinomialAtAPowerOfTwoIsTable2) {
  // sum_{j=0}^{ceil(log2 P)-1} g(2^j m) + ceil(log2 P) L
  EXPECT_TRUE(same_seconds(scatter_binomial(p, 2, 1000), 7e-6));   // g(1000) + 5e-6
  EXPECT_TRUE(same_seconds(scatter_binomial(p, 4, 1000), 15e-6));  // (2 + 3) e-6 + 2 x 5e-6
  EXPECT_TRUE(same_seconds(scatter_binomial(p, 8, 1000), 25e-6));  // (2 + 3 + 5) e-6 + 15e-6
}

TEST_F(PlogpScatter, BinomialAtOtherPWalksTheRealTree) {
  // The tree sends min(mask, P - mask) blocks to vrank mask, largest mask first; Table 2 as
  // written would charge 2^j blocks per round (15e-6, 25e-6, 25e-6, 39e-6 below).
  // P = 3: one block to vrank 2, then one to vrank 1: 2 g(1000) + L.
  EXPECT_TRUE(same_seconds(scatter_binomial(p, 3, 1000), 9e-6));
  // P = 5: 1 block to vrank 4, then 2 to vrank 2, which forwards one: the longest path is
  // g(1000) + g(2000) + L, then g(1000) + L: (2 + 3) e-6 + 5e-6 + 7e-6.
  EXPECT_TRUE(same_seconds(scatter_binomial(p, 5, 1000), 17e-6));
  // P = 7: 3 blocks to vrank 4 (4e-6 + L, then its subtree of 3: 9e-6) = 18e-6, or after
  // 2 blocks to vrank 2 as well (4 + 3) e-6 + L + g(1000) + L = 19e-6, the longer.
  EXPECT_TRUE(same_seconds(scatter_binomial(p, 7, 1000), 19e-6));
  // P = 9: 1 block to vrank 8, then 4 to vrank 4, whose subtree takes 15e-6:
  // (2 + 5) e-6 + L + 15e-6.
  EXPECT_TRUE(same_seconds(scatter_binomial(p, 9, 1000), 27e-6));
}

// Every Scatter message goes to a receive already posted: the posted pair (docs/MODELS.md, "Two
// gaps"); two_gap_params(): g_p(m) = 0.5e-6 + 0.8e-9 m, L_p = 5.5e-6.
TEST(PlogpScatterTwoGaps, EveryMessageCostsThePostedPair) {
  const Params q = testing::two_gap_params();
  EXPECT_TRUE(same_seconds(scatter_flat(q, 4, 100), 7.24e-6));  // 3 x 0.58e-6 + 5.5e-6
  // g_p(100) + g_p(200) + g_p(300) + 3 L_p = 0.58e-6 + 0.66e-6 + 0.74e-6 + 16.5e-6
  EXPECT_TRUE(same_seconds(scatter_chain(q, 4, 100), 18.48e-6));
  // P = 5: 1 block to vrank 4, 2 to vrank 2, which forwards one: 0.58e-6 + 0.66e-6 + 5.5e-6
  // + 0.58e-6 + 5.5e-6
  EXPECT_TRUE(same_seconds(scatter_binomial(q, 5, 100), 12.82e-6));
}

// One-way time (docs/MODELS.md): each hop's L_p is taken at the size it carries; with L_p + 0.1 us
// at every size, every L_p above grows by 0.1 us.
TEST(PlogpScatterOneWay, EveryHopsLatencyIsTakenAtItsSize) {
  const Params q = testing::one_way_params(1e-7);
  EXPECT_TRUE(same_seconds(scatter_flat(q, 4, 100), 7.34e-6));
  EXPECT_TRUE(same_seconds(scatter_chain(q, 4, 100), 18.78e-6));
  EXPECT_TRUE(same_seconds(scatter_binomial(q, 5, 100), 13.02e-6));
  // A one-way time that grows with the size charges each hop at its own size: L_p + 1 ns per
  // byte, so the chain's hops of 300, 200 and 100 bytes add 0.6 us.
  Params growing = testing::two_gap_params();
  for (SizePoint& point : growing.table) {
    point.one_way_s = testing::kLp + testing::line_gp(point.bytes) + 1e-9 * point.bytes;
  }
  growing.one_way_times = true;
  EXPECT_TRUE(same_seconds(scatter_chain(growing, 4, 100), 18.48e-6 + 0.6e-6));
}

// Shared fan-out (docs/MODELS.md): the eager messages a node sends one after the other share its
// link, so the first child also waits for its later siblings' messages, each g_p(j) x the smaller
// of the two messages' sigma.
Params shared(double sigma) { return testing::shared_fanout_params(sigma); }

TEST(PlogpScatterSharedFanout, TheFirstChildWaitsForItsLaterSiblings) {
  // P = 4, m = 100: 2 blocks to vrank 2, then 1 to vrank 1; vrank 2's message also waits for
  // vrank 1's (0.58e-6): 0.66e-6 + 5.5e-6 + 0.58e-6, then vrank 2 forwards one block in 6.08e-6.
  EXPECT_TRUE(same_seconds(scatter_binomial(shared(1.0), 4, 100), 12.82e-6));
  EXPECT_TRUE(same_seconds(scatter_binomial(shared(0.5), 4, 100), 12.53e-6));
  EXPECT_TRUE(same_seconds(scatter_binomial(shared(0.0), 4, 100), 12.24e-6));  // Table 2
  // P = 8: vrank 4's 4 blocks wait for 2 and 1 (0.66e-6 + 0.58e-6), and vrank 4 is delayed alike
  // by its own later child: 0.82e-6 + 5.5e-6 + 1.24e-6 + 12.82e-6.
  EXPECT_TRUE(same_seconds(scatter_binomial(shared(1.0), 8, 100), 20.38e-6));
}

TEST(PlogpScatterSharedFanout, AFirstMessageThatLeavesBeforeTheNextSharesNothing) {
  // sigma 1 up to 100 bytes and 0 from 200 (a send completing only once delivered, as past an
  // eager limit): P = 4, m = 100: vrank 2's 200 bytes leave before vrank 1's are sent.
  Params q = shared(0.0);
  q.table.clear();
  for (std::uint64_t m : {0ULL, 1ULL, 100ULL, 200ULL, 1048576ULL}) {
    const double x = static_cast<double>(m);
    SizePoint point{m, testing::line_g(m), 2e-7 + x * 1e-10, 3e-7 + x * 2e-10};
    point.posted_gap_s = testing::line_gp(m);
    point.fanout_share = m <= 100 ? 1.0 : 0.0;
    q.table.push_back(point);
  }
  EXPECT_TRUE(same_seconds(scatter_binomial(q, 4, 100), 12.24e-6));
}

TEST_F(PlogpScatter, NothingToSendCostsNothing) {
  using Model = double (*)(const Params&, int, std::uint64_t);
  const Model flat = [](const Params& q, int P, std::uint64_t m) { return scatter_flat(q, P, m); };
  for (Model f : {flat, Model{scatter_chain}, Model{scatter_binomial}}) {
    EXPECT_EQ(f(p, 1, 1000), 0.0);
    EXPECT_EQ(f(p, 0, 1000), 0.0);
    EXPECT_EQ(f(p, -2, 1000), 0.0);
    EXPECT_EQ(f(p, 5, 0), 0.0);
  }
}

TEST_F(PlogpScatter, HugeBlocksSaturateInsteadOfWrapping) {
  // m = 2^62, P = 5: the blocks j m are 2^62, 2^63, 3 x 2^62 and 4 x 2^62 = 2^64, which saturates
  // to 2^64 - 1 (about 2^64 as a double) instead of wrapping to 0. g is extrapolated with slope
  // 1e-9: 4 x 1e-6 + (1 + 2 + 3 + 4) x 2^62 x 1e-9 + 4 x 5e-6.
  const std::uint64_t m = std::uint64_t{1} << 62;
  EXPECT_TRUE(same_seconds(scatter_chain(p, 5, m), 24e-6 + 10.0 * 0x1p62 * 1e-9));
}

}  // namespace
}  // namespace collsel::models::plogp

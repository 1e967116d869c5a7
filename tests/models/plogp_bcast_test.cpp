#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "linear_params.hpp"
#include "models/plogp/bcast.hpp"

// Hand-computed values on linear_params(): L = 5e-6 and g(m) = 1e-6 + m x 1e-9, hence
// g(1) = 1.001e-6, g(250) = 1.25e-6, g(300) = 1.3e-6, g(1000) = 2e-6. The rendezvous handshake
// is 2 g(1) + 3 L = 2.002e-6 + 15e-6 = 17.002e-6. m = 1000 with s = 300 is k = ceil(1000/300) = 4.
namespace collsel::models::plogp {
namespace {

using testing::linear_params;
using testing::same_seconds;

class PlogpBcast : public ::testing::Test {
 protected:
  const Params p = linear_params();
};

TEST_F(PlogpBcast, Flat) {
  EXPECT_TRUE(same_seconds(bcast_flat(p, 4, 1000), 11e-6));  // 3 x 2e-6 + 5e-6
  EXPECT_TRUE(same_seconds(bcast_flat(p, 5, 1000), 13e-6));  // 4 x 2e-6 + 5e-6
  EXPECT_TRUE(same_seconds(bcast_flat(p, 2, 1), 6.001e-6));  // 1 x 1.001e-6 + 5e-6
}

TEST_F(PlogpBcast, FlatRendezvous) {
  EXPECT_TRUE(same_seconds(bcast_flat_rendezvous(p, 4, 1000), 23.002e-6));  // 6e-6 + 17.002e-6
  EXPECT_TRUE(same_seconds(bcast_flat_rendezvous(p, 7, 1000), 29.002e-6));  // 12e-6 + 17.002e-6
}

TEST_F(PlogpBcast, FlatSegmented) {
  // 3 x (g(300) x 4) + L = 3 x 5.2e-6 + 5e-6
  EXPECT_TRUE(same_seconds(bcast_flat_segmented(p, 4, 1000, 300), 20.6e-6));
  // 2 x (g(250) x 4) + L = 2 x 5e-6 + 5e-6
  EXPECT_TRUE(same_seconds(bcast_flat_segmented(p, 3, 1000, 250), 15e-6));
  // k = 1000 segments of 1 byte: 3 x (1.001e-6 x 1000) + 5e-6
  EXPECT_TRUE(same_seconds(bcast_flat_segmented(p, 4, 1000, 1), 3.008e-3));
}

TEST_F(PlogpBcast, Chain) {
  EXPECT_TRUE(same_seconds(bcast_chain(p, 4, 1000), 21e-6));  // 3 x (2e-6 + 5e-6)
  EXPECT_TRUE(same_seconds(bcast_chain(p, 7, 1000), 42e-6));  // 6 x 7e-6
}

TEST_F(PlogpBcast, ChainRendezvous) {
  EXPECT_TRUE(same_seconds(bcast_chain_rendezvous(p, 4, 1000), 57.006e-6));  // 3 x 19.002e-6
  EXPECT_TRUE(same_seconds(bcast_chain_rendezvous(p, 3, 1000), 38.004e-6));  // 2 x 19.002e-6
}

TEST_F(PlogpBcast, ChainSegmented) {
  // 3 x (1.3e-6 + 5e-6) + 1.3e-6 x 3 = 18.9e-6 + 3.9e-6
  EXPECT_TRUE(same_seconds(bcast_chain_segmented(p, 4, 1000, 300), 22.8e-6));
  // 4 x 6.3e-6 + 3.9e-6 = 25.2e-6 + 3.9e-6
  EXPECT_TRUE(same_seconds(bcast_chain_segmented(p, 5, 1000, 300), 29.1e-6));
  // s = 250 divides m: 3 x 6.25e-6 + 1.25e-6 x 3
  EXPECT_TRUE(same_seconds(bcast_chain_segmented(p, 4, 1000, 250), 22.5e-6));
  // s = 999: k = 2, g(999) = 1.999e-6: 3 x 6.999e-6 + 1.999e-6
  EXPECT_TRUE(same_seconds(bcast_chain_segmented(p, 4, 1000, 999), 22.996e-6));
}

TEST_F(PlogpBcast, BinaryUsesTheHeapTreeDepth) {
  // floor(log2 P) x (2 g(m) + L) = depth x 9e-6
  EXPECT_TRUE(same_seconds(bcast_binary(p, 2, 1000), 9e-6));   // depth 1
  EXPECT_TRUE(same_seconds(bcast_binary(p, 3, 1000), 9e-6));   // depth 1
  EXPECT_TRUE(same_seconds(bcast_binary(p, 4, 1000), 18e-6));  // depth 2
  EXPECT_TRUE(same_seconds(bcast_binary(p, 5, 1000), 18e-6));  // depth 2, the Table's bound says 3
  EXPECT_TRUE(same_seconds(bcast_binary(p, 7, 1000), 18e-6));  // depth 2
  EXPECT_TRUE(same_seconds(bcast_binary(p, 8, 1000), 27e-6));  // depth 3
}

TEST_F(PlogpBcast, Binomial) {
  // floor(log2 P) g(m) + ceil(log2 P) L
  EXPECT_TRUE(same_seconds(bcast_binomial(p, 2, 1000), 7e-6));   // 1 x 2e-6 + 1 x 5e-6
  EXPECT_TRUE(same_seconds(bcast_binomial(p, 3, 1000), 12e-6));  // 1 x 2e-6 + 2 x 5e-6
  EXPECT_TRUE(same_seconds(bcast_binomial(p, 4, 1000), 14e-6));  // 2 x 2e-6 + 2 x 5e-6
  EXPECT_TRUE(same_seconds(bcast_binomial(p, 5, 1000), 19e-6));  // 2 x 2e-6 + 3 x 5e-6
  EXPECT_TRUE(same_seconds(bcast_binomial(p, 7, 1000), 19e-6));  // 2 x 2e-6 + 3 x 5e-6
  EXPECT_TRUE(same_seconds(bcast_binomial(p, 8, 1000), 21e-6));  // 3 x 2e-6 + 3 x 5e-6
}

TEST_F(PlogpBcast, BinomialRendezvous) {
  // 2 x 2e-6 + 2 x 17.002e-6
  EXPECT_TRUE(same_seconds(bcast_binomial_rendezvous(p, 4, 1000), 38.004e-6));
  // 2 x 2e-6 + 3 x 17.002e-6
  EXPECT_TRUE(same_seconds(bcast_binomial_rendezvous(p, 5, 1000), 55.006e-6));
  // 1 x 2e-6 + 2 x 17.002e-6
  EXPECT_TRUE(same_seconds(bcast_binomial_rendezvous(p, 3, 1000), 36.004e-6));
}

TEST_F(PlogpBcast, BinomialSegmented) {
  // 2 x 1.3e-6 x 4 + 2 x 5e-6
  EXPECT_TRUE(same_seconds(bcast_binomial_segmented(p, 4, 1000, 300), 20.4e-6));
  // 2 x 1.3e-6 x 4 + 3 x 5e-6
  EXPECT_TRUE(same_seconds(bcast_binomial_segmented(p, 7, 1000, 300), 25.4e-6));
  // 1 x 1.3e-6 x 4 + 2 x 5e-6
  EXPECT_TRUE(same_seconds(bcast_binomial_segmented(p, 3, 1000, 300), 15.2e-6));
}

TEST_F(PlogpBcast, OneSegmentIsThePlainModel) {
  // No segment size, or one >= m, is a single segment of m bytes.
  for (std::uint64_t s : {std::uint64_t{0}, std::uint64_t{1000}, std::uint64_t{5000}}) {
    EXPECT_TRUE(same_seconds(bcast_flat_segmented(p, 5, 1000, s), bcast_flat(p, 5, 1000)));
    EXPECT_TRUE(same_seconds(bcast_chain_segmented(p, 5, 1000, s), bcast_chain(p, 5, 1000)));
    EXPECT_TRUE(same_seconds(bcast_binomial_segmented(p, 5, 1000, s), bcast_binomial(p, 5, 1000)));
  }
  EXPECT_TRUE(same_seconds(bcast_chain_segmented(p, 4, 1000, 0), 21e-6));  // 3 x (2e-6 + 5e-6)
}

TEST_F(PlogpBcast, NothingToSendCostsNothing) {
  using Plain = double (*)(const Params&, int, std::uint64_t);
  using Segmented = double (*)(const Params&, int, std::uint64_t, std::uint64_t);
  const Plain plain[] = {
      bcast_flat,     bcast_flat_rendezvous,    bcast_chain, bcast_chain_rendezvous, bcast_binary,
      bcast_binomial, bcast_binomial_rendezvous};
  const Segmented segmented[] = {bcast_flat_segmented, bcast_chain_segmented,
                                 bcast_binomial_segmented};
  for (int P : {-1, 0, 1}) {
    for (auto f : plain) EXPECT_EQ(f(p, P, 1000), 0.0) << "P = " << P;
    for (auto f : segmented) EXPECT_EQ(f(p, P, 1000, 100), 0.0) << "P = " << P;
  }
  for (auto f : plain) EXPECT_EQ(f(p, 8, 0), 0.0);
  for (auto f : segmented) {
    EXPECT_EQ(f(p, 8, 0, 100), 0.0);
    EXPECT_EQ(f(p, 8, 0, 0), 0.0);
  }
}

// Reference definitions by repeated doubling, independent of the bit tricks under test.
int slow_floor_log2(std::uint64_t x) {
  int k = 0;
  while ((std::uint64_t{2} << k) <= x) ++k;
  return k;
}

int slow_ceil_log2(std::uint64_t x) {
  int k = 0;
  while ((std::uint64_t{1} << k) < x) ++k;
  return k;
}

// Two gaps (docs/MODELS.md): the whole-message trees cost the posted pair g_p, L_p (two_gap_params:
// g_p(1000) = 1.3e-6, g_p(1) = 5.008e-7, L_p = 5.5e-6), the segmented pipelines the stream pair.
TEST(PlogpBcastTwoGaps, WholeMessageTreesCostThePostedPair) {
  const Params q = testing::two_gap_params();
  EXPECT_TRUE(same_seconds(bcast_flat(q, 4, 1000), 9.4e-6));      // 3 x 1.3e-6 + 5.5e-6
  EXPECT_TRUE(same_seconds(bcast_chain(q, 4, 1000), 20.4e-6));    // 3 x (1.3e-6 + 5.5e-6)
  EXPECT_TRUE(same_seconds(bcast_binary(q, 7, 1000), 16.2e-6));   // 2 x (2.6e-6 + 5.5e-6)
  EXPECT_TRUE(same_seconds(bcast_binomial(q, 5, 1000), 19.1e-6));  // 2 x 1.3e-6 + 3 x 5.5e-6
}

// A pipeline's first segment to each receiver costs the posted pair, its later segments the
// stream gap: s = 300 is k = 4, g_p(300) = 0.74e-6, g(300) = 1.3e-6, so a sender's segments to
// one receiver cost 0.74e-6 + 3 x 1.3e-6 = 4.64e-6. One segment is the plain twin.
TEST(PlogpBcastTwoGaps, APipelinesFirstSegmentIsPostedItsOthersStream) {
  const Params q = testing::two_gap_params();
  EXPECT_TRUE(same_seconds(bcast_flat_segmented(q, 4, 1000, 300), 19.42e-6));  // 3 x 4.64 + 5.5
  // 3 x (0.74e-6 + 5.5e-6) + 3 x 1.3e-6
  EXPECT_TRUE(same_seconds(bcast_chain_segmented(q, 4, 1000, 300), 22.62e-6));
  // Segment-major: the root sends each segment to its k = 2 children in turn (2 g_p(300) =
  // 1.48e-6), and its first child takes two segments per stream gap plus its own forwarding:
  // g(300) + (k - 1) g_p(300) / 2 = 1.67e-6 apart; the first one's path is 2 g_p + 3 L_p:
  // 1.48e-6 + 16.5e-6 + 3 x 1.67e-6 (each level charged the whole pipeline before:
  // 2 x 4.64e-6 + 3 x 5.5e-6 = 25.78e-6).
  EXPECT_TRUE(same_seconds(bcast_binomial_segmented(q, 5, 1000, 300), 22.99e-6));
  for (const std::uint64_t s : {0ULL, 1000ULL, 4096ULL}) {
    EXPECT_EQ(bcast_flat_segmented(q, 4, 1000, s), bcast_flat(q, 4, 1000));
    EXPECT_EQ(bcast_chain_segmented(q, 4, 1000, s), bcast_chain(q, 4, 1000));
    EXPECT_EQ(bcast_binomial_segmented(q, 5, 1000, s), bcast_binomial(q, 5, 1000));
  }
}

// A rendezvous in lock-step and scatter_allgather's ring steps cost the stream pair;
// scatter_allgather's scatter, to idle receivers, the posted pair.
TEST(PlogpBcastTwoGaps, RendezvousAndTheRingCostTheStreamPair) {
  const Params q = testing::two_gap_params();
  const Params p = linear_params();
  EXPECT_EQ(bcast_flat_rendezvous(q, 4, 1000), bcast_flat_rendezvous(p, 4, 1000));
  EXPECT_EQ(bcast_chain_rendezvous(q, 4, 1000), bcast_chain_rendezvous(p, 4, 1000));
  EXPECT_EQ(bcast_binomial_rendezvous(q, 5, 1000), bcast_binomial_rendezvous(p, 5, 1000));
  // P = 4, m = 1000: chunks c = 250. Scatter (posted): rounds of 1 and 2 chunks, g_p(250) +
  // g_p(500) + 2 L_p = 0.7e-6 + 0.9e-6 + 11e-6; ring (stream): 3 x (g(250) + L) = 3 x 6.25e-6.
  EXPECT_TRUE(same_seconds(bcast_scatter_allgather(q, 4, 1000), 12.6e-6 + 18.75e-6));
}

// Shared fan-out (docs/MODELS.md): a binomial node's k children all receive when its last does,
// sigma g_p(m) (k - 1) later for the first, summed over the critical path's k = floor(log2 P) .. 1.
Params shared(double sigma) { return testing::shared_fanout_params(sigma); }

TEST(PlogpBcastSharedFanout, TheBinomialTreesFirstChildWaitsForItsSiblings) {
  const Params all = shared(1.0);
  // P = 8, k = 3: 3 x 1.3e-6 + 3 x 5.5e-6 = 20.4e-6, plus 1.3e-6 x (2 + 1 + 0) = 3.9e-6; that is
  // every level's children receiving together: (3 + 2 + 1) x 1.3e-6 + 3 x 5.5e-6.
  EXPECT_TRUE(same_seconds(bcast_binomial(all, 8, 1000), 24.3e-6));
  EXPECT_TRUE(same_seconds(bcast_binomial(shared(0.5), 8, 1000), 22.35e-6));
  EXPECT_TRUE(same_seconds(bcast_binomial(shared(0.0), 8, 1000), 20.4e-6));
  // P = 5 (k = 2): one sibling's message more; for the segmented tree the segments in flight to
  // it together, two (the receiver keeps two receives posted), not its four: g_p(300) + g(300) =
  // 0.74e-6 + 1.3e-6, so 22.99e-6 + 2.04e-6.
  EXPECT_TRUE(same_seconds(bcast_binomial_segmented(all, 5, 1000, 300), 25.03e-6));
  EXPECT_EQ(bcast_binomial_segmented(all, 5, 1000, 0), bcast_binomial(all, 5, 1000));
  // The rendezvous's data messages leave together as well, its children being ready together.
  const Params q = testing::two_gap_params();
  EXPECT_TRUE(same_seconds(bcast_binomial_rendezvous(all, 5, 1000),
                           bcast_binomial_rendezvous(q, 5, 1000) + 1.3e-6));
}

TEST(PlogpBcastSharedFanout, TreesWithoutAFirstChildToDelayAreUnchanged) {
  const Params all = shared(1.0);
  const Params q = testing::two_gap_params();
  for (const int P : {2, 5, 8, 64}) {
    EXPECT_EQ(bcast_flat(all, P, 1000), bcast_flat(q, P, 1000));
    EXPECT_EQ(bcast_chain(all, P, 1000), bcast_chain(q, P, 1000));
    EXPECT_EQ(bcast_binary(all, P, 1000), bcast_binary(q, P, 1000));
    EXPECT_EQ(bcast_chain_segmented(all, P, 1000, 300), bcast_chain_segmented(q, P, 1000, 300));
  }
  // One child per node at P = 2 and 3: nothing to share.
  EXPECT_EQ(bcast_binomial(all, 2, 1000), bcast_binomial(q, 2, 1000));
  EXPECT_EQ(bcast_binomial(all, 3, 1000), bcast_binomial(q, 3, 1000));
}

// Two receives ahead (docs/MODELS.md): the tree engine keeps two receives posted, so a
// pipeline's later segments cost the pipeline gap g_2 (two_ahead_params: g_2(300) = 1.07e-6), and
// where the two segments in flight share the link (pair share tau) the chain's first segment
// reaches every node tau g_p(300) = tau x 0.74e-6 later, less one share off the tail.
TEST(PlogpBcastTwoAhead, APipelinesLaterSegmentsCostThePipelineGap) {
  const Params q = testing::two_ahead_params(0.0);
  // 3 x (0.74e-6 + 5.5e-6) + 3 x 1.07e-6
  EXPECT_TRUE(same_seconds(bcast_chain_segmented(q, 4, 1000, 300), 21.93e-6));
  // A sender's segments to one receiver: 0.74e-6 + 3 x 1.07e-6 = 3.95e-6.
  EXPECT_TRUE(same_seconds(bcast_flat_segmented(q, 4, 1000, 300), 17.35e-6));  // 3 x 3.95 + 5.5
  // The binomial tree's segments follow max(k g_p(300), g_2(300) + (k - 1) g_p(300) / 2) apart:
  // at P = 5 (k = 2) the root's two sends, 1.48e-6 > 1.07e-6 + 0.37e-6; at P = 3 (k = 1) the
  // pipeline gap, 1.07e-6 > 0.74e-6: 0.74e-6 + 2 x 5.5e-6 + 3 x 1.07e-6.
  EXPECT_TRUE(same_seconds(bcast_binomial_segmented(q, 5, 1000, 300), 22.42e-6));
  EXPECT_TRUE(same_seconds(bcast_binomial_segmented(q, 3, 1000, 300), 14.95e-6));
  // The whole-message trees never pipeline.
  const Params two_gaps = testing::two_gap_params();
  EXPECT_EQ(bcast_chain(q, 4, 1000), bcast_chain(two_gaps, 4, 1000));
  EXPECT_EQ(bcast_binomial(q, 5, 1000), bcast_binomial(two_gaps, 5, 1000));
}

TEST(PlogpBcastTwoAhead, ASharedPairDelaysTheChainsInnerHops) {
  // P = 4: (4 - 2) x tau x 0.74e-6 more.
  EXPECT_TRUE(same_seconds(bcast_chain_segmented(testing::two_ahead_params(1.0), 4, 1000, 300),
                           21.93e-6 + 1.48e-6));
  EXPECT_TRUE(same_seconds(bcast_chain_segmented(testing::two_ahead_params(0.5), 4, 1000, 300),
                           21.93e-6 + 0.74e-6));
  const Params all = testing::two_ahead_params(1.0);
  const Params none = testing::two_ahead_params(0.0);
  // P = 2: the pair's delay is all taken off the tail. One segment: no pair.
  EXPECT_EQ(bcast_chain_segmented(all, 2, 1000, 300), bcast_chain_segmented(none, 2, 1000, 300));
  for (const std::uint64_t s : {0ULL, 1000ULL}) {
    EXPECT_EQ(bcast_chain_segmented(all, 5, 1000, s), bcast_chain(all, 5, 1000));
  }
  // Only the chain's first segment is charged: the flat and binomial pipelines' first child
  // receives the pair at their segments_to_one cost either way.
  EXPECT_EQ(bcast_flat_segmented(all, 4, 1000, 300), bcast_flat_segmented(none, 4, 1000, 300));
}

// A chain's inner node receives and sends every segment: its segments leave o_s + o_r apart at
// least. With o_s = o_r = 1 us, 2 us > g_2(300) = 1.07 us from P = 3 on; P = 2 has no inner node.
TEST(PlogpBcastTwoAhead, AChainsInnerNodesForwardAtLeastTheirTwoOverheadsApart) {
  Params q = testing::two_ahead_params(0.0);
  for (SizePoint& point : q.table) point.send_overhead_s = point.recv_overhead_s = 1e-6;
  EXPECT_TRUE(same_seconds(q.forwarding_gap_s(300), 2e-6));
  // 3 x (0.74e-6 + 5.5e-6) + 3 x 2e-6
  EXPECT_TRUE(same_seconds(bcast_chain_segmented(q, 4, 1000, 300), 24.72e-6));
  // 0.74e-6 + 5.5e-6 + 3 x 1.07e-6
  EXPECT_TRUE(same_seconds(bcast_chain_segmented(q, 2, 1000, 300), 9.45e-6));
  // Overheads below g_2 change nothing; without the pipeline column the stream gap stays.
  EXPECT_TRUE(same_seconds(bcast_chain_segmented(testing::two_ahead_params(0.0), 4, 1000, 300),
                           21.93e-6));
  Params old = testing::two_gap_params();
  for (SizePoint& point : old.table) point.send_overhead_s = point.recv_overhead_s = 1e-6;
  EXPECT_EQ(old.forwarding_gap_s(300), old.gap_s(300));
}

// The preposted chain keeps up to 64 receives posted, as the burst that measures g_p does: its
// later segments cost g_p(300) = 0.74e-6 where the engine's pipeline pays g_2(300) = 1.07e-6,
// floored by an inner node's o_s + o_r (0.23e-6 + 0.36e-6 here, 2e-6 below), and the pair share
// is charged for each of the w - 1 segments in flight behind the first, w = min(k, 64).
TEST(PlogpBcastTwoAhead, APrepostedChainsLaterSegmentsCostThePostedGap) {
  const Params q = testing::two_ahead_params(0.0);
  // 3 x (0.74e-6 + 5.5e-6) + 3 x 0.74e-6
  EXPECT_TRUE(same_seconds(bcast_chain_preposted(q, 4, 1000, 300), 20.94e-6));
  EXPECT_LT(bcast_chain_preposted(q, 4, 1000, 300), bcast_chain_segmented(q, 4, 1000, 300));
  // P = 4, k = w = 4: (4 - 2) x 3 x tau x 0.74e-6 more; chain_segmented's pair term is w = 2.
  EXPECT_TRUE(same_seconds(bcast_chain_preposted(testing::two_ahead_params(1.0), 4, 1000, 300),
                           20.94e-6 + 4.44e-6));
  EXPECT_TRUE(same_seconds(bcast_chain_preposted(testing::two_ahead_params(0.5), 4, 1000, 300),
                           20.94e-6 + 2.22e-6));
  // w stops at 64: 1000 bytes in 10-byte segments are k = 100, in flight 64 at a time; the
  // spacing is g_p(10) = 0.508e-6, above o_s + o_r = 0.201e-6 + 0.302e-6.
  const Params shared = testing::two_ahead_params(1.0);
  const double gp10 = 0.508e-6;
  const double many = 3 * (gp10 + 5.5e-6) + 99 * gp10 + 2 * 63 * gp10;
  EXPECT_TRUE(same_seconds(bcast_chain_preposted(shared, 4, 1000, 10), many));
  Params busy = q;
  for (SizePoint& point : busy.table) point.send_overhead_s = point.recv_overhead_s = 1e-6;
  EXPECT_TRUE(same_seconds(bcast_chain_preposted(busy, 4, 1000, 300), 24.72e-6));  // 3 x 2e-6
  // P = 2 has no inner node: 0.74e-6 + 5.5e-6 + 3 x 0.74e-6.
  EXPECT_TRUE(same_seconds(bcast_chain_preposted(busy, 2, 1000, 300), 8.46e-6));
  // One segment is the plain chain; nothing to send costs nothing.
  for (const std::uint64_t s : {0ULL, 1000ULL, 4096ULL}) {
    EXPECT_EQ(bcast_chain_preposted(q, 5, 1000, s), bcast_chain(q, 5, 1000));
  }
  EXPECT_EQ(bcast_chain_preposted(q, 1, 1000, 300), 0.0);
  EXPECT_EQ(bcast_chain_preposted(q, 8, 0, 300), 0.0);
}

// One-way time (docs/MODELS.md): every hop's L_p is taken at the size it carries, here L_p +
// 0.1 us at every size, so each L_p of a formula grows by 0.1 us.
TEST(PlogpBcastOneWay, EveryHopsLatencyIsTakenAtItsSize) {
  const Params q = testing::one_way_params(1e-7);
  EXPECT_TRUE(same_seconds(bcast_flat(q, 4, 1000), 9.5e-6));      // 3 x 1.3e-6 + 5.6e-6
  EXPECT_TRUE(same_seconds(bcast_chain(q, 4, 1000), 20.7e-6));    // 3 x (1.3e-6 + 5.6e-6)
  EXPECT_TRUE(same_seconds(bcast_binary(q, 7, 1000), 16.4e-6));   // 2 x (2.6e-6 + 5.6e-6)
  EXPECT_TRUE(same_seconds(bcast_binomial(q, 5, 1000), 19.4e-6));  // 2 x 1.3e-6 + 3 x 5.6e-6
  // 3 x (0.74e-6 + 5.6e-6) + 3 x 1.3e-6 (the stream gap: no pipeline column here)
  EXPECT_TRUE(same_seconds(bcast_chain_segmented(q, 4, 1000, 300), 22.92e-6));
}

TEST(PlogpHelpers, Log2From1To65) {
  for (std::uint64_t x = 1; x <= 65; ++x) {
    EXPECT_EQ(floor_log2(x), slow_floor_log2(x)) << "x = " << x;
    EXPECT_EQ(ceil_log2(x), slow_ceil_log2(x)) << "x = " << x;
  }
  // A few by hand: x -> (floor, ceil).
  EXPECT_EQ(floor_log2(1), 0);
  EXPECT_EQ(ceil_log2(1), 0);
  EXPECT_EQ(floor_log2(3), 1);
  EXPECT_EQ(ceil_log2(3), 2);
  EXPECT_EQ(floor_log2(5), 2);
  EXPECT_EQ(ceil_log2(5), 3);
  EXPECT_EQ(floor_log2(64), 6);
  EXPECT_EQ(ceil_log2(64), 6);
  EXPECT_EQ(floor_log2(65), 6);
  EXPECT_EQ(ceil_log2(65), 7);
}

TEST(PlogpHelpers, Log2AtTheEdges) {
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(floor_log2(0), 0);
  EXPECT_EQ(ceil_log2(0), 0);
  EXPECT_EQ(floor_log2(std::uint64_t{1} << 63), 63);
  EXPECT_EQ(ceil_log2(std::uint64_t{1} << 63), 63);
  EXPECT_EQ(floor_log2(max), 63);
  EXPECT_EQ(ceil_log2(max), 64);
}

TEST(PlogpHelpers, CeilDiv) {
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(ceil_div(0, 1), 0u);
  EXPECT_EQ(ceil_div(1, 1), 1u);
  EXPECT_EQ(ceil_div(7, 2), 4u);
  EXPECT_EQ(ceil_div(8, 2), 4u);
  EXPECT_EQ(ceil_div(1000, 300), 4u);
  EXPECT_EQ(ceil_div(max, 2), std::uint64_t{1} << 63);  // no overflow near 2^64
  EXPECT_EQ(ceil_div(max, max), 1u);
  EXPECT_EQ(ceil_div(5, 0), 5u);  // b == 0 is treated as 1
}

TEST_F(PlogpBcast, ScatterAllgather) {
  // P = 4, m = 1000: chunks of c = 250. Binomial scatter of 250-byte blocks (seed 001 Table 2):
  // g(250) + g(500) + 2 L = 12.75e-6; ring: 3 (g(250) + L) = 18.75e-6.
  EXPECT_TRUE(same_seconds(bcast_scatter_allgather(p, 4, 1000), 31.5e-6));
  // P = 5: c = 200; the binomial scatter's tree sends 1 block to vrank 4, then 2 to vrank 2, which
  // forwards one: g(200) + g(400) + L + g(200) + L = 13.8e-6 (scatter_binomial walks the tree);
  // ring: 4 (g(200) + L) = 24.8e-6.
  EXPECT_TRUE(same_seconds(bcast_scatter_allgather(p, 5, 1000), 38.6e-6));
  EXPECT_EQ(bcast_scatter_allgather(p, 1, 1000), 0.0);
  EXPECT_EQ(bcast_scatter_allgather(p, 4, 0), 0.0);
  // Why it exists: 1 MiB on 64 ranks moves each byte about twice, a binomial tree six times.
  EXPECT_LT(bcast_scatter_allgather(p, 64, 1 << 20), 0.5 * bcast_binomial(p, 64, 1 << 20));
}

TEST_F(PlogpBcast, ScatterDoublingAllgather) {
  // P = 4, m = 1000: the same scatter as the ring's, 12.75e-6; then two rounds, of 1 and 2 blocks:
  // (g(250) + L) + (g(500) + L) = 6.25e-6 + 6.5e-6.
  EXPECT_TRUE(same_seconds(bcast_scatter_doubling_allgather(p, 4, 1000), 25.5e-6));
  // P = 5: the scatter 13.8e-6; Bruck's rounds move min(d, 5 - d) blocks of 200 bytes: 1, 2, 1:
  // (g(200) + L) + (g(400) + L) + (g(200) + L) = 6.2e-6 + 6.4e-6 + 6.2e-6.
  EXPECT_TRUE(same_seconds(bcast_scatter_doubling_allgather(p, 5, 1000), 32.6e-6));
  EXPECT_EQ(bcast_scatter_doubling_allgather(p, 1, 1000), 0.0);
  EXPECT_EQ(bcast_scatter_doubling_allgather(p, 4, 0), 0.0);
  // Why it exists: the ring's bytes in 6 rounds, not 63 steps, on 64 ranks.
  EXPECT_LT(bcast_scatter_doubling_allgather(p, 64, 1 << 16),
            bcast_scatter_allgather(p, 64, 1 << 16) - 50 * p.latency_s);
}

TEST_F(PlogpBcast, SplitBinary) {
  // P = 8, m = 2000: halves of h = 1000 in k = 4 segments of 300 (g(300) = 1.3e-6, one gap).
  // Open MPI's level-order tree: 0 -> 1, 2; 1 -> 3, 5; 2 -> 4, 6; 3 -> 7. A first child gets the
  // first segment g(300) + L = 6.3e-6 after its parent, a second child 2 g(300) + L = 7.6e-6:
  // vrank 7 (0, 1, 3, 7, all first children) at 18.9e-6, the last. Spacing max(2 x 1.3e-6,
  // 1.3e-6 + 0.65e-6) = 2.6e-6, 3 of them = 7.8e-6; the swap g(1000) + L = 7e-6.
  EXPECT_TRUE(same_seconds(bcast_split_binary(p, 8, 2000, 300), 33.7e-6));
  // One segment per half (s = 0 or >= h), P = 4: vrank 3 (first child of 1) at 2 (g(1000) + L)
  // = 14e-6, vrank 2 at 2 g(1000) + L = 9e-6; then the swap: 21e-6.
  EXPECT_TRUE(same_seconds(bcast_split_binary(p, 4, 2000, 0), 21e-6));
  EXPECT_TRUE(same_seconds(bcast_split_binary(p, 4, 2000, 1000), 21e-6));
  // m = 1001: h = ceil(1001 / 2) = 501, P = 3: vrank 2, the second child, at 2 g(501) + L, then
  // g(501) + L: 14.503e-6.
  EXPECT_TRUE(same_seconds(bcast_split_binary(p, 3, 1001, 0), 14.503e-6));
  EXPECT_EQ(bcast_split_binary(p, 1, 1000, 100), 0.0);
  EXPECT_EQ(bcast_split_binary(p, 8, 0, 100), 0.0);
  // Why it exists: each node forwards half the message, so for large messages the pipeline of
  // halves beats the binary tree of whole messages.
  EXPECT_LT(bcast_split_binary(p, 64, 1 << 16, 1024), 0.6 * bcast_binary(p, 64, 1 << 16));
}

TEST_F(PlogpBcast, SplitBinaryFirstChildrenPayTheirOverheadsPerSegment) {
  // o_s = o_r = 1 us at every size: from P = 5 on a first child receives every segment and sends
  // it to two children, 3 us a segment, more than SplitBinary's spacing of 2.6e-6 at P = 8: its
  // 3 spacings take 0.4e-6 more each, 33.7e-6 + 1.2e-6.
  Params q = p;
  for (SizePoint& point : q.table) point.send_overhead_s = point.recv_overhead_s = 1e-6;
  EXPECT_TRUE(same_seconds(bcast_split_binary(q, 8, 2000, 300), 34.9e-6));
  // At P = 4 the first child, vrank 1, has one child: the overheads change nothing.
  EXPECT_TRUE(
      same_seconds(bcast_split_binary(q, 4, 2000, 300), bcast_split_binary(p, 4, 2000, 300)));
}

// The O(log P) latest arrival against a walk of every vrank of Open MPI's level-order tree
// (parent v - 2^(l-1) when that lies on level l - 1, else v - 2^l), for P = 2..600 and edge costs
// where a second child costs more, less, or the same as a first child with a sibling.
TEST(PlogpSplitBinary, LastArrivalIsTheWalksLatest) {
  const auto walk = [](int P, double first_shared, double first_alone, double second) {
    std::vector<double> arrival(static_cast<std::size_t>(P), 0.0);
    double last = 0.0;
    for (int v = 1; v < P; ++v) {
      int level = 0;
      while ((2 << level) - 1 <= v) ++level;
      const int delta = 1 << level;
      const bool first = v - delta / 2 <= delta - 2;
      const int parent = first ? v - delta / 2 : v - delta;
      const double edge = !first ? second : (v + delta / 2 < P ? first_shared : first_alone);
      arrival[static_cast<std::size_t>(v)] = arrival[static_cast<std::size_t>(parent)] + edge;
      last = std::max(last, arrival[static_cast<std::size_t>(v)]);
    }
    return last;
  };
  const double costs[][3] = {{3.0, 2.0, 5.0}, {7.0, 2.0, 5.0}, {5.0, 5.0, 5.0}, {4.0, 1.0, 4.5}};
  for (int P = 1; P <= 600; ++P) {
    for (const auto& c : costs) {
      EXPECT_DOUBLE_EQ(level_binary_last_arrival(P, c[0], c[1], c[2]), walk(P, c[0], c[1], c[2]))
          << "P = " << P << " costs " << c[0] << ", " << c[1] << ", " << c[2];
    }
  }
}

}  // namespace
}  // namespace collsel::models::plogp

// Placements of ranks on nodes (seed 002 section VI.D: RRN, RRP, random) and the schedule
// simulator on hand-made schedules whose times follow from the timing rule by hand
// (models/contention/schedule.cpp): alone, a message costs g(m) + L, split into a fixed start
// delay max(0, g(m) - alpha m), then alpha m rho on the network, then L.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "linear_params.hpp"
#include "models/alltoall/contention.hpp"
#include "models/contention/schedule.hpp"

namespace collsel::models::contention {
namespace {

using plogp::testing::kL;
using plogp::testing::linear_params;
using plogp::testing::same_seconds;

using Nodes = std::vector<int>;

constexpr double kAlpha = 1e-9;      // 1 GB/s between nodes
constexpr double kIntra = 1e-10;     // 10 GB/s within a node
constexpr std::uint64_t kBytes = 1000;

// software(): linear_params() (g(m) = 1 us + m ns, L = 5 us) with o_s(m) = g(m): the sender's
// software paces every message, never the link, so a message's transfer is alpha m and its fixed
// part seed 003's g(m) - alpha m. o_s(1000) = 2 o_s(0), more than a post's CPU cost may grow
// (schedule.cpp, network_cost), so a rank's sends of 1000 bytes without dependencies are posted a
// fixed part apart; o_r plays no part.
plogp::Params software(plogp::Params p = plogp::testing::linear_params()) {
  for (plogp::SizePoint& point : p.table) point.send_overhead_s = point.gap_s;
  return p;
}

constexpr double kGap = 1e-6 + kBytes * 1e-9;    // g(1000) = 2 us
constexpr double kTransfer = kBytes * kAlpha;   // 1 us on the network, alone
constexpr double kFixed = kGap - kTransfer;     // 1 us before it, never stretched
// One uncontended message between two nodes: g(m) + L = 7 us.
constexpr double kOneMessage = kGap + kL;

Params fair(double intra = kIntra) {
  Params p;
  p.rule = RuleKind::fair;
  p.alpha_s_per_byte = kAlpha;
  p.intra_alpha_s_per_byte = intra;
  return p;
}

Message send(int src, int dst, std::vector<int> after = {}) {
  return {src, dst, kBytes, std::move(after)};
}

// An [intra_node] table: g(m) = 0.2 us + m x 0.1 ns, L = 0.5 us.
plogp::Params intra_node_table() {
  plogp::Params intra;
  intra.latency_s = 0.5e-6;
  intra.table = {{0, 0.2e-6, 0.1e-6, 0.1e-6},
                 {1 << 20, 0.2e-6 + (1 << 20) * 1e-10, 0.1e-6, 0.1e-6}};
  return intra;
}

Placement one_per_node(int ranks) { return make_placement(PlacementKind::one_per_node, ranks, 1); }

// --- placements ---

TEST(Placement, NamesRoundTripAndUnknownNamesAreRejected) {
  for (PlacementKind k : {PlacementKind::one_per_node, PlacementKind::round_robin,
                          PlacementKind::filled, PlacementKind::random}) {
    EXPECT_EQ(placement_from_name(placement_name(k)), k);
  }
  EXPECT_EQ(placement_name(PlacementKind::round_robin), "round-robin");
  EXPECT_FALSE(placement_from_name("rrn").has_value());
  EXPECT_FALSE(placement_from_name("Filled").has_value());
}

TEST(Placement, OnePerNodeIgnoresRanksPerNode) {
  const Placement p = make_placement(PlacementKind::one_per_node, 5, 3);
  EXPECT_EQ(p.node_of_rank, (Nodes{0, 1, 2, 3, 4}));
  EXPECT_EQ(p.nodes(), 5);
  EXPECT_EQ(p.max_ranks_per_node(), 1);
}

TEST(Placement, RoundRobinIsRrnOfSeed002) {
  // 8 ranks, 4 per node: 2 nodes, ranks dealt in turn.
  EXPECT_EQ(make_placement(PlacementKind::round_robin, 8, 4, 1).node_of_rank,
            (Nodes{0, 1, 0, 1, 0, 1, 0, 1}));
  // 10 ranks, 4 per node: 3 nodes, the last two hold 3 ranks each.
  const Placement p = make_placement(PlacementKind::round_robin, 10, 4);
  EXPECT_EQ(p.node_of_rank, (Nodes{0, 1, 2, 0, 1, 2, 0, 1, 2, 0}));
  EXPECT_EQ(p.nodes(), 3);
  EXPECT_EQ(p.max_ranks_per_node(), 4);
}

TEST(Placement, FilledIsRrpOfSeed002) {
  EXPECT_EQ(make_placement(PlacementKind::filled, 8, 4).node_of_rank,
            (Nodes{0, 0, 0, 0, 1, 1, 1, 1}));
  const Placement p = make_placement(PlacementKind::filled, 10, 4);
  EXPECT_EQ(p.node_of_rank, (Nodes{0, 0, 0, 0, 1, 1, 1, 1, 2, 2}));
  EXPECT_EQ(p.nodes(), 3);
  EXPECT_EQ(p.max_ranks_per_node(), 4);
  EXPECT_TRUE(make_placement(PlacementKind::filled, 0, 4).node_of_rank.empty());
  EXPECT_EQ(make_placement(PlacementKind::filled, 0, 4).max_ranks_per_node(), 0);
}

TEST(Placement, RandomIsASeededPermutationOfFilled) {
  const Placement filled = make_placement(PlacementKind::filled, 64, 8);
  const Placement a = make_placement(PlacementKind::random, 64, 8, 42);
  const Placement again = make_placement(PlacementKind::random, 64, 8, 42);
  const Placement other = make_placement(PlacementKind::random, 64, 8, 43);
  EXPECT_EQ(a.node_of_rank, again.node_of_rank);  // every rank of a job computes the same
  EXPECT_NE(a.node_of_rank, other.node_of_rank);
  EXPECT_NE(a.node_of_rank, filled.node_of_rank);
  // Same number of ranks on each node as filled.
  Nodes sorted = a.node_of_rank;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, filled.node_of_rank);
  EXPECT_EQ(a.max_ranks_per_node(), 8);
  EXPECT_EQ(a.nodes(), 8);
}

TEST(Placement, BadCountsThrow) {
  EXPECT_THROW(make_placement(PlacementKind::filled, -1, 2), std::invalid_argument);
  EXPECT_THROW(make_placement(PlacementKind::round_robin, 4, 0), std::invalid_argument);
}

TEST(Placement, FromProcessorNamesInOrderOfFirstAppearance) {
  const Placement p = placement_from_names({"n7", "n2", "n7", "n3", "n2", "n2"});
  EXPECT_EQ(p.node_of_rank, (Nodes{0, 1, 0, 2, 1, 1}));
  EXPECT_EQ(p.nodes(), 3);
  EXPECT_EQ(p.max_ranks_per_node(), 3);
  EXPECT_TRUE(placement_from_names({}).node_of_rank.empty());
}

// --- simulation ---

TEST(Simulate, OneMessageCostsTheGapAndTheLatency) {
  const Schedule s{2, {send(0, 1)}};
  const SimulationResult r = simulate(s, one_per_node(2), fair(), software());
  EXPECT_TRUE(same_seconds(r.completion_s, kGap + kL));
  ASSERT_EQ(r.graph.size(), 1u);
  EXPECT_EQ(r.graph[0].src, 0);
  EXPECT_EQ(r.graph[0].dst, 1);
  // The fixed part of g(m) delays the start; alpha m is the transfer; L is the tail.
  EXPECT_TRUE(same_seconds(r.graph[0].start_s, kFixed));
  EXPECT_TRUE(same_seconds(r.graph[0].tail_s, kL));
  EXPECT_TRUE(same_seconds(r.solution.start_s[0], kFixed));
  EXPECT_TRUE(same_seconds(r.solution.end_s[0], kGap));
}

TEST(Simulate, AStreamedSegmentCostsTheStreamPairAnyOtherMessageThePostedPair) {
  // two_gap_params(): g_p(1000) = 1.3 us, L_p = 5.5 us; g(1000) = 2 us, L = 5 us.
  const plogp::Params q = software(plogp::testing::two_gap_params());
  const Schedule posted{2, {send(0, 1)}};
  const SimulationResult a = simulate(posted, one_per_node(2), fair(), q);
  EXPECT_TRUE(same_seconds(a.completion_s, 1.3e-6 + plogp::testing::kLp));
  EXPECT_TRUE(same_seconds(a.graph[0].start_s, 1.3e-6 - kTransfer));
  Schedule unposted{2, {send(0, 1)}};
  unposted.messages[0].unposted = true;
  const SimulationResult b = simulate(unposted, one_per_node(2), fair(), q);
  EXPECT_TRUE(same_seconds(b.completion_s, kOneMessage));
  EXPECT_TRUE(same_seconds(b.graph[0].tail_s, kL));
}

TEST(Simulate, APipelinedSegmentCostsThePipelineGapAndThePostedLatency) {
  // two_ahead_params(): g_2(1000) = 1.7 us behind L_p = 5.5 us.
  Schedule pipelined{2, {send(0, 1)}};
  pipelined.messages[0].pipelined = true;
  pipelined.messages[0].unposted = true;  // pipelined wins
  const SimulationResult a =
      simulate(pipelined, one_per_node(2), fair(), software(plogp::testing::two_ahead_params(0)));
  EXPECT_TRUE(same_seconds(a.completion_s, 1.7e-6 + plogp::testing::kLp));
  EXPECT_TRUE(same_seconds(a.graph[0].tail_s, plogp::testing::kLp));
  // Without the column: the stream pair, as before it.
  const SimulationResult b = simulate(pipelined, one_per_node(2), fair(),
                                      software(plogp::testing::two_gap_params()));
  EXPECT_TRUE(same_seconds(b.completion_s, kOneMessage));
  EXPECT_TRUE(same_seconds(b.graph[0].tail_s, kL));
}

TEST(Simulate, APipelinesFirstSegmentArrivesThePairShareLate) {
  // 0 -> 1 twice, a pipeline's first segment (posted) and a later one (pipelined, after the
  // first as the sender's own send), and rank 1's forward of the first (1 -> 2). With the pair
  // share tau = 0.5 the two segments share the link and the first reaches rank 1
  // tau g_p(1000) = 0.65 us late, so the forward starts that much later; the later segment and
  // the forward, followed by nothing to their receivers, are not delayed.
  Schedule s{3, {send(0, 1), send(0, 1, {0}), send(1, 2, {0})}};
  s.messages[1].pipelined = true;
  const auto at = [&](double tau) {
    return simulate(s, one_per_node(3), fair(), software(plogp::testing::two_ahead_params(tau)));
  };
  const SimulationResult queued = at(0.0);
  const SimulationResult shared = at(0.5);
  const double late = 0.5 * 1.3e-6;
  EXPECT_TRUE(same_seconds(queued.graph[0].tail_s, plogp::testing::kLp));
  EXPECT_TRUE(same_seconds(shared.graph[0].tail_s, plogp::testing::kLp + late));
  EXPECT_TRUE(same_seconds(shared.solution.start_s[2] - queued.solution.start_s[2], late));
  EXPECT_TRUE(same_seconds(shared.graph[1].tail_s, queued.graph[1].tail_s));
  EXPECT_TRUE(same_seconds(shared.graph[2].tail_s, queued.graph[2].tail_s));
  // Two whole messages to one receiver are no pipeline: nothing is added.
  Schedule posted = s;
  posted.messages[1].pipelined = false;
  EXPECT_TRUE(same_seconds(
      simulate(posted, one_per_node(3), fair(), software(plogp::testing::two_ahead_params(0.5)))
          .graph[0]
          .tail_s,
      plogp::testing::kLp));
}

TEST(Simulate, AForwardedSegmentCostsAtLeastTheTwoOverheads) {
  // o_s = o_r = 1 us: the forwarding gap 2 us > g_2(1000) = 1.7 us.
  plogp::Params q = plogp::testing::two_ahead_params(0);
  for (plogp::SizePoint& point : q.table) point.send_overhead_s = point.recv_overhead_s = 1e-6;
  Schedule s{2, {send(0, 1)}};
  s.messages[0].pipelined = true;
  const SimulationResult plain = simulate(s, one_per_node(2), fair(), q);
  EXPECT_TRUE(same_seconds(plain.completion_s, 1.7e-6 + plogp::testing::kLp));
  s.messages[0].forwarded = true;
  const SimulationResult forwarded = simulate(s, one_per_node(2), fair(), q);
  EXPECT_TRUE(same_seconds(forwarded.completion_s, 2e-6 + plogp::testing::kLp));
}

TEST(Simulate, ABandwidthAboveTheGapsSlopeLeavesNoFixedPart) {
  // alpha m = 5 us > g(m) = 2 us: the fixed part is clamped to 0 and the transfer is alpha m.
  Params slow = fair();
  slow.alpha_s_per_byte = 5e-9;
  const SimulationResult r = simulate(Schedule{2, {send(0, 1)}}, one_per_node(2), slow,
                                      software());
  EXPECT_EQ(r.solution.start_s[0], 0.0);
  EXPECT_TRUE(same_seconds(r.completion_s, kBytes * 5e-9 + kL));
}

TEST(Simulate, TwoSendsFromOneNodeStretchOnlyTheTransferUnderTheFairRule) {
  // Ranks 0 and 1 share node 0 and send to nodes 1 and 2 at once: rho = outdegree 2, each
  // transfer takes twice as long; the fixed part and L are not stretched: 1 + 2 x 1 + 5 = 8 us.
  const Schedule s{4, {send(0, 2), send(1, 3)}};
  const Placement p{{0, 0, 1, 2}};
  const SimulationResult r = simulate(s, p, fair(), software());
  EXPECT_TRUE(same_seconds(r.completion_s, kFixed + 2 * kTransfer + kL));
  ASSERT_EQ(r.solution.steps.size(), 1u);
  EXPECT_DOUBLE_EQ(r.solution.steps[0].rows[0].penalty, 2.0);
}

TEST(Simulate, ARanksSendsWithoutDependenciesArePostedOneAfterTheOther) {
  // Rank 0 posts two sends of 4000 bytes at once (g = 5 us: transfer 4 us, fixed part 1 us). The
  // second is posted one fixed part after the first (1 us, then 2 us); the transfers overlap,
  // sharing node 0's link (fair rule, rho = 2 while both run). The first moves 1000 bytes alone
  // in 1 us; then its 3000 take 6 us at half speed (done at 8 us); the second has 1000 left,
  // alone again: done at 9 us, seen at 14 us. Only the transfers stretch.
  constexpr std::uint64_t big = 4 * kBytes;
  const double fixed = (1e-6 + big * 1e-9) - big * kAlpha;
  const Schedule s{3, {{0, 1, big, {}}, {0, 2, big, {}}}};
  const SimulationResult r = simulate(s, one_per_node(3), fair(), software());
  EXPECT_TRUE(same_seconds(r.solution.start_s[0], fixed));
  EXPECT_TRUE(same_seconds(r.solution.start_s[1], 2 * fixed));
  EXPECT_TRUE(same_seconds(r.solution.end_s[0], 8e-6));
  EXPECT_TRUE(same_seconds(r.completion_s, 9e-6 + kL));
  ASSERT_EQ(r.solution.steps.size(), 3u);
  EXPECT_DOUBLE_EQ(r.solution.steps[0].rows[0].penalty, 1.0);
  EXPECT_DOUBLE_EQ(r.solution.steps[1].rows[0].penalty, 2.0);
  EXPECT_DOUBLE_EQ(r.solution.steps[1].rows[1].penalty, 2.0);
}

TEST(Simulate, APostedBurstIsPacedByItsLinkWhereTheGapExceedsTheSendersCost) {
  // linear_params() itself: o_s(1000) = 0.3 us < g(1000) = 2 us. The sender's CPU posts a message
  // in o_s and the link carries it while the CPU posts the next, so the burst's g is the link's
  // time per message: the link carries all 2 us of g(1000) (wire_scale 2), not alpha m = 1 us
  // nor g - o_s = 1.7 us. Four sends from rank 0 keep the link busy with 4 x 2 us of work from
  // the first post on (the fair rule shares it without loss): the last transfer ends at 8 us and
  // is seen at 13 us, the 4 g + L that pLogP charges a burst. Alone, a message still costs g + L.
  const Schedule burst{5, {send(0, 1), send(0, 2), send(0, 3), send(0, 4)}};
  const SimulationResult r = simulate(burst, one_per_node(5), fair(), linear_params());
  EXPECT_TRUE(same_seconds(r.completion_s, 8e-6 + kL));
  EXPECT_DOUBLE_EQ(r.graph[0].wire_scale, 2.0);
  const SimulationResult alone =
      simulate(Schedule{2, {send(0, 1)}}, one_per_node(2), fair(), linear_params());
  EXPECT_TRUE(same_seconds(alone.completion_s, kOneMessage));
  // Where the sender paces every message (software(): o_s = g) the same burst overlaps its
  // fixed parts with the transfers: 1 us apart, 1 us each, the last seen at 5 + 5 us.
  EXPECT_TRUE(
      same_seconds(simulate(burst, one_per_node(5), fair(), software()).completion_s, 10e-6));
  // The unposted stream pair keeps the serial reading: the link carries g - o_s = 1.7 us, less
  // what a zero-byte message has there, g(0) - o_s(0) = 0.8 us (a wait, not bytes), and at
  // least alpha m = 1 us.
  Schedule unposted = burst;
  for (Message& m : unposted.messages) m.unposted = true;
  EXPECT_DOUBLE_EQ(simulate(unposted, one_per_node(5), fair(), linear_params())
                       .graph[0].wire_scale,
                   1.0);
}

TEST(Simulate, AnUnpostedMessageWaitsForItsReceiversPreviousMessage) {
  // 0 -> 1, and 2 -> 1 unposted, whose receive rank 1 posts once it has the first
  // (Message::posted_after): the second starts its fixed part when the first is seen (g + L =
  // 7 us), and is seen one lone message later, 14 us. Without it both run at once.
  Schedule s{3, {send(0, 1), send(2, 1)}};
  s.messages[1].unposted = true;
  const double together = simulate(s, one_per_node(3), fair(), software()).completion_s;
  EXPECT_LT(together, 1.5 * kOneMessage);
  s.messages[1].posted_after = 0;
  const SimulationResult r = simulate(s, one_per_node(3), fair(), software());
  EXPECT_TRUE(same_seconds(r.solution.start_s[1], kOneMessage + kFixed));
  EXPECT_TRUE(same_seconds(r.completion_s, 2 * kOneMessage));
}

TEST(Simulate, AnUnpostedMessagesZeroByteWaitIsNotLinkTime) {
  // linear_params() at alpha = 0.5 ns: g(1000) - o_s(1000) = 1.7 us, of which g(0) - o_s(0) =
  // 0.8 us is there at zero bytes too: the link carries 0.9 us (wire_scale 0.9 / 0.5), the rest
  // stays in the fixed part, so alone the message still costs g + L. Rank 0's two messages to
  // ranks 1 and 2 share its link: 2 x 0.9 us of link, not 2 x 1.7 (SMPI's gige: g(1) = 53.5 us
  // of which 50.5 us is a wait, read as link time it made 1-byte rounds at 8 per node 2.8x too
  // slow).
  Params net = fair();
  net.alpha_s_per_byte = 0.5e-9;
  Schedule s{3, {send(0, 1), send(0, 2)}};
  for (Message& m : s.messages) m.unposted = true;
  const SimulationResult r = simulate(s, one_per_node(3), net, linear_params());
  EXPECT_NEAR(r.graph[0].wire_scale, 1.8, 1e-12);
  const SimulationResult alone =
      simulate(Schedule{2, {s.messages[0]}}, one_per_node(2), net, linear_params());
  EXPECT_TRUE(same_seconds(alone.completion_s, kOneMessage));
  // Not a rendezvous's handshake, whose link part carries nothing (Message::handshake), nor a
  // pipeline's later segment: both keep g - o_s.
  Schedule handshake = s;
  handshake.messages[0].handshake = true;
  EXPECT_NEAR(simulate(handshake, one_per_node(3), net, linear_params()).graph[0].wire_scale,
              3.4, 1e-12);
  Schedule pipelined = s;
  pipelined.messages[0].pipelined = true;
  EXPECT_NEAR(simulate(pipelined, one_per_node(3), net, linear_params()).graph[0].wire_scale,
              3.4, 1e-12);
}

TEST(Simulate, CpuPacedPostsFollowOneAnotherByTheGapNotByTheFixedPart) {
  // g(m) = o_s(m) = 2 us at every size, alpha 1 ns: the CPU paces a burst of 1000-byte posted
  // sends (the link needs 1 us of each 2 us). Rank 0's three sends start at 1, 3 and 5 us (each
  // post 2 us after the previous one, its transfer a fixed part of 1 us after its post) and the
  // last is seen at 6 us + L: seed 001's flat tree, 3 g + L. Posting them a fixed part apart
  // predicted 4 us + L (ib-fattree's 4 KiB flat Scatter at P = 256: 36 % short).
  plogp::Params cpu;
  cpu.latency_s = kL;
  cpu.table = {{0, 2e-6, 2e-6, 0.0}, {1 << 20, 2e-6, 2e-6, 0.0}};
  const Schedule s{4, {send(0, 1), send(0, 2), send(0, 3)}};
  const SimulationResult r = simulate(s, one_per_node(4), fair(), cpu);
  EXPECT_TRUE(same_seconds(r.solution.start_s[0], 1e-6));
  EXPECT_TRUE(same_seconds(r.solution.start_s[1], 3e-6));
  EXPECT_TRUE(same_seconds(r.solution.start_s[2], 5e-6));
  EXPECT_TRUE(same_seconds(r.completion_s, 3 * 2e-6 + kL));
  // Where o_s(m) grew past 1.5 o_s(0) it is not a post's CPU cost (a rendezvous send's blocking
  // time): the posts keep the fixed part's spacing, 1 us.
  plogp::Params rendezvous = cpu;
  rendezvous.table = {{0, 2e-6, 1e-6, 0.0}, {1000, 2e-6, 2e-6, 0.0}, {1 << 20, 2e-6, 2e-6, 0.0}};
  const SimulationResult v = simulate(s, one_per_node(4), fair(), rendezvous);
  EXPECT_TRUE(same_seconds(v.solution.start_s[2], 3e-6));
  EXPECT_TRUE(same_seconds(v.completion_s, 4e-6 + kL));
}

TEST(Simulate, AFlatScatterOfSmallBlocksCostsSeed001sFlatTree) {
  // 16-byte blocks from rank 0 to 1023 others, one rank per node: the sender's CPU paces them
  // (o_s(16) = g(16), near o_s(0)), so the posts follow one another by g(16) = 1.016 us, each
  // transfer (16 ns) starts a fixed part g(16) - 16 alpha after its post and ends before the
  // next, and the last is seen at 1023 g(16) + L: seed 001's (P-1) g(m) + L. Before, the 1023
  // sends all started at once and the prediction was about one message's; then they followed
  // by the fixed part, 16 ns per send short.
  constexpr int ranks = 1024;
  constexpr std::uint64_t bytes = 16;
  const double fixed = 1e-6;  // g(16) - 16 alpha, alpha = the gap's slope here
  Schedule s{ranks, {}};
  for (int r = 1; r < ranks; ++r) s.messages.push_back({0, r, bytes, {}});
  const SimulationResult r = simulate(s, one_per_node(ranks), fair(), software());
  const double closed_form = (ranks - 1) * (fixed + bytes * 1e-9) + kL;
  EXPECT_TRUE(same_seconds(r.completion_s, closed_form));
  for (const StepRow& row : r.solution.steps.front().rows) EXPECT_EQ(row.penalty, 1.0);
  // Another rank's posts do not wait for rank 0's.
  s.messages.push_back({1, 2, bytes, {}});
  const SimulationResult two = simulate(s, one_per_node(ranks), fair(), software());
  EXPECT_TRUE(same_seconds(two.solution.start_s.back(), fixed));
}

TEST(Simulate, AReceiversCpuHandlesItsMessagesOneAfterAnother) {
  // Eight ranks, one per node, send 16 bytes each to rank 0 at once: alone, each costs g + L =
  // 1 + 5 us, and the eight share rank 0's link (16 ns each), so the network part ends at
  // 6.112 us. But rank 0's CPU handles the eight receives one after another, o_r(16) = 3 us
  // each: 24 us (SMPI's all_at_once of 256-byte blocks at P = 16 on eth25-fattree: (P - 1)
  // (o_s + o_r) = 30 us, simulated 18 us before).
  plogp::Params cpu;
  cpu.latency_s = kL;
  cpu.table = {{0, 1e-6, 1e-6, 3e-6}, {1 << 20, 1e-6, 1e-6, 3e-6}};
  Schedule incast{9, {}};
  for (int r = 1; r <= 8; ++r) incast.messages.push_back({r, 0, 16, {}});
  EXPECT_TRUE(same_seconds(simulate(incast, one_per_node(9), fair(), cpu).completion_s, 24e-6));
  // Receives that cost less than the messages' own time change nothing: 8 x 0.5 us < 6.112 us.
  plogp::Params cheap = cpu;
  for (plogp::SizePoint& point : cheap.table) point.recv_overhead_s = 5e-7;
  EXPECT_TRUE(same_seconds(simulate(incast, one_per_node(9), fair(), cheap).completion_s,
                           1e-6 + 7 * 16e-9 + kL));
  // Where o_r(m) grew past 1.5 o_r(0) it is a blocking receive's wait for the transfer, which the
  // network part already times: a receive keeps the CPU o_r(0), 8 x 3 us, not 8 x 10 us.
  plogp::Params waiting = cpu;
  waiting.table = {{0, 1e-6, 1e-6, 3e-6}, {16, 1e-6, 1e-6, 10e-6}, {1 << 20, 1e-6, 1e-6, 10e-6}};
  EXPECT_TRUE(
      same_seconds(simulate(incast, one_per_node(9), fair(), waiting).completion_s, 24e-6));
}

TEST(Simulate, ASendersNextSendFollowsItsPreviousOneWithoutTheLatency) {
  // 0 -> 1, then 0 -> 2 after it (a blocking send's program order): the second is posted when
  // the first's transfer ends (2 us), not when node 1 sees it (7 us): 2 g + L = 9 us, as seed
  // 001's flat tree charges.
  const Schedule s{3, {send(0, 1), send(0, 2, {0})}};
  const SimulationResult r = simulate(s, one_per_node(3), fair(), software());
  EXPECT_TRUE(same_seconds(r.solution.start_s[1], kGap + kFixed));
  EXPECT_TRUE(same_seconds(r.completion_s, 2 * kGap + kL));
  EXPECT_TRUE(r.graph[1].after.empty());
  EXPECT_EQ(r.graph[1].after_sent, std::vector<int>{0});
}

// Message::when_send_waits: the message's other reading, taken only where a send of its bytes
// waits for the transfer. software()'s o_s(1000) is twice o_s(0), a wait; linear_params()'s 1.5
// times, a post's CPU cost: there the two sends go as one burst, read as listed.
TEST(Simulate, TheReadingWhenTheSendWaitsIsTakenOnlyWhereItWaits) {
  Schedule s{3, {send(0, 1), send(0, 2)}};
  s.messages[1].when_send_waits = Message::WhenSendWaits{.after = 0, .pipelined = true};
  const SimulationResult waiting = simulate(s, one_per_node(3), fair(), software());
  EXPECT_EQ(waiting.graph[1].after_sent, std::vector<int>{0});
  Schedule serial{3, {send(0, 1), send(0, 2, {0})}};
  serial.messages[1].pipelined = true;
  EXPECT_EQ(waiting.completion_s,
            simulate(serial, one_per_node(3), fair(), software()).completion_s);
  const SimulationResult detached = simulate(s, one_per_node(3), fair(), linear_params());
  EXPECT_TRUE(detached.graph[1].after_sent.empty());
  const Schedule burst{3, {send(0, 1), send(0, 2)}};
  EXPECT_EQ(detached.completion_s,
            simulate(burst, one_per_node(3), fair(), linear_params()).completion_s);
  // The repetition interval reads it the same way: the pipeline gap where the send waits.
  EXPECT_EQ(busiest_rank_s(s, software()), busiest_rank_s(serial, software()));
  EXPECT_EQ(busiest_rank_s(s, linear_params()), busiest_rank_s(burst, linear_params()));
}

TEST(Simulate, ADependencyChainAddsUpGapPlusLatencyPerHop) {
  // 0 -> 1, then 1 forwards to 2 once it has received: the first is seen at g + L = 7 us, the
  // second starts after its fixed part (8 us) and is seen at 2 (g + L) = 14 us.
  const Schedule s{3, {send(0, 1), send(1, 2, {0})}};
  const SimulationResult r = simulate(s, one_per_node(3), fair(), software());
  EXPECT_TRUE(same_seconds(r.completion_s, 2 * kOneMessage));
  EXPECT_TRUE(same_seconds(r.solution.start_s[1], kOneMessage + kFixed));
  EXPECT_TRUE(same_seconds(r.graph[1].after_delay_s, kFixed));
}

TEST(Simulate, IntraNodeMessagesPayTheFixedPartThenTheCopyRateWithoutContention) {
  // Ranks 0 and 1 share node 0; two copies at once are not penalised. Each pays the same fixed
  // part as a message between nodes (g - alpha m = 1 us), then its copy (0.1 us) instead of the
  // network transfer (1 us), then L: cheaper than the same message between nodes.
  const Schedule s{2, {send(0, 1), send(1, 0)}};
  const Placement shared = make_placement(PlacementKind::filled, 2, 2);
  const SimulationResult r = simulate(s, shared, fair(), software());
  EXPECT_EQ(r.graph[0].src, r.graph[0].dst);
  EXPECT_TRUE(same_seconds(r.completion_s, kFixed + kBytes * kIntra + kL));
  EXPECT_LT(r.completion_s, kOneMessage);
  for (std::size_t k : {0u, 1u}) {
    EXPECT_TRUE(same_seconds(r.solution.start_s[k], kFixed)) << k;
    EXPECT_TRUE(same_seconds(r.solution.end_s[k], kFixed + kBytes * kIntra)) << k;
  }
  EXPECT_TRUE(r.solution.steps.empty());  // no inter-node communication, no contention step

  // Without a measured copy rate, the documented default applies.
  const SimulationResult d = simulate(s, shared, fair(0.0), software());
  EXPECT_TRUE(same_seconds(d.completion_s,
                           kFixed + kBytes * alltoall::kDefaultCopySecondsPerByte + kL));

  // A copy slower than the network (10 us for the 1000 bytes) costs the fixed part, itself and L.
  const SimulationResult slow = simulate(s, shared, fair(1e-8), software());
  EXPECT_TRUE(same_seconds(slow.completion_s, kFixed + kBytes * 1e-8 + kL));
}

TEST(Simulate, AnIntraNodeTableTimesTheMessagesWithinANode) {
  // The [intra_node] table: g(m) = 0.2 us + m x 0.1 ns, L = 0.5 us. Ranks 0 and 1 share node 0,
  // rank 2 is alone on node 1. 0 -> 1 stays within the node: its fixed part is
  // g_intra(1000) - 1000 intra_alpha = 0.3 - 0.1 = 0.2 us, then the 0.1 us copy, then L_intra.
  // 1 -> 2 crosses: the network's table, after 0 -> 1 is seen.
  const plogp::Params intra = intra_node_table();
  const Schedule s{3, {send(0, 1), send(1, 2, {0})}};
  const Placement p{{0, 0, 1}};
  const SimulationResult r = simulate(s, p, fair(), software(), &intra);
  EXPECT_TRUE(same_seconds(r.solution.start_s[0], 0.2e-6));
  EXPECT_TRUE(same_seconds(r.graph[0].tail_s, 0.5e-6));
  const double seen = 0.2e-6 + kBytes * kIntra + 0.5e-6;
  EXPECT_TRUE(same_seconds(r.solution.start_s[1], seen + kFixed));
  EXPECT_TRUE(same_seconds(r.graph[1].tail_s, kL));
  EXPECT_TRUE(same_seconds(r.completion_s, seen + kOneMessage));
  // Without the table the intra-node message takes the network's g and L (before this test's
  // commit, always): slower here.
  const SimulationResult without = simulate(s, p, fair(), software());
  EXPECT_TRUE(same_seconds(without.completion_s, kFixed + kBytes * kIntra + kL + kOneMessage));
  // An empty table is no table.
  const plogp::Params empty;
  EXPECT_EQ(simulate(s, p, fair(), software(), &empty).completion_s, without.completion_s);
}

TEST(Simulate, ThePlacementDecidesWhatContends) {
  // 0 -> 2 and 1 -> 3 at once.
  const Schedule s{4, {send(0, 2), send(1, 3)}};
  const auto run = [&](PlacementKind kind) {
    return simulate(s, make_placement(kind, 4, 2), fair(), software());
  };
  // One per node: two independent links.
  EXPECT_TRUE(same_seconds(run(PlacementKind::one_per_node).completion_s, kOneMessage));
  // Filled (nodes 0 0 1 1): both cross from node 0 to node 1, rho = 2.
  EXPECT_TRUE(same_seconds(run(PlacementKind::filled).completion_s,
                           kFixed + 2 * kTransfer + kL));
  // Round-robin (nodes 0 1 0 1): both are copies within a node, never contended.
  const SimulationResult rr = run(PlacementKind::round_robin);
  EXPECT_TRUE(same_seconds(rr.completion_s, kFixed + kBytes * kIntra + kL));
  EXPECT_EQ(rr.graph[0].src, rr.graph[0].dst);
  EXPECT_EQ(rr.graph[1].src, rr.graph[1].dst);
  EXPECT_TRUE(same_seconds(rr.solution.end_s[0], kFixed + kBytes * kIntra));
}

TEST(Simulate, AnEmptyScheduleTakesNoTime) {
  const SimulationResult r = simulate(Schedule{1, {}}, one_per_node(1), fair(), software());
  EXPECT_EQ(r.completion_s, 0.0);
  EXPECT_TRUE(r.graph.empty());
}

TEST(Simulate, RejectsPlacementsAndRanksThatDoNotFit) {
  const Schedule s{3, {send(0, 2)}};
  EXPECT_THROW(simulate(s, one_per_node(2), fair(), software()), std::invalid_argument);
  const Schedule outside{2, {send(0, 2)}};
  EXPECT_THROW(simulate(outside, one_per_node(3), fair(), software()),
               std::invalid_argument);
}

// --- repetition interval ---

TEST(BusiestRank, AChainRepeatsAtOneRanksSegmentsNotAtItsCompletion) {
  // Three segments down the chain 0 -> 1 -> 2, pipelined: rank 1 receives three and forwards
  // three, the busiest; the schedule completes after two hops of the first segment and the
  // others' gaps behind it, but its calls can follow one another every 3 g_2.
  const plogp::Params q = plogp::testing::two_ahead_params(0);
  Schedule chain{3, {}};
  for (int k = 0; k < 3; ++k) {
    Message down = send(0, 1, k == 0 ? std::vector<int>{} : std::vector<int>{2 * (k - 1)});
    down.pipelined = true;
    chain.messages.push_back(down);
    Message on = send(1, 2, {2 * k});
    on.pipelined = true;
    chain.messages.push_back(on);
  }
  EXPECT_TRUE(same_seconds(busiest_rank_s(chain, q), 3 * 1.7e-6));
  EXPECT_GT(simulate(chain, one_per_node(3), fair(), q).completion_s, 3 * 1.7e-6);
}

TEST(BusiestRank, SendsAndReceivesAreCountedApartAndEachKindByItsGap) {
  // Rank 0 sends two posted messages (g_p 1.3 us each), rank 3 receives three unposted ones (g,
  // 2 us each): a link carries both ways at once, so the interval is the larger side, 6 us.
  const plogp::Params q = plogp::testing::two_gap_params();
  Schedule s{4, {send(0, 1), send(0, 2)}};
  for (int src : {0, 1, 2}) {
    Message m = send(src, 3);
    m.unposted = true;
    s.messages.push_back(m);
  }
  EXPECT_TRUE(same_seconds(busiest_rank_s(s, q), 3 * 2e-6));
  s.messages.resize(2);
  EXPECT_TRUE(same_seconds(busiest_rank_s(s, q), 2 * 1.3e-6));
  EXPECT_EQ(busiest_rank_s(Schedule{1, {}}, q), 0.0);
}

// busiest_cpu_s: a rank pays o_s per send and o_r per receive one after the other. On the chain
// 0 -> 1 -> 2 of 1000 bytes (o_s 0.3 us, o_r 0.5 us) rank 1 pays both, 0.8 us, where its gaps
// overlap (busiest_rank_s: one gap). With ranks 0 and 1 on one node, the first hop pays the
// [intra_node] table's overheads (twice the network's here): rank 1 then pays 1.0 + 0.3 us.
TEST(BusiestCpu, ARankPaysItsSendAndReceiveOverheadsOneAfterTheOther) {
  const plogp::Params q = plogp::testing::linear_params();
  const Schedule chain{3, {send(0, 1), send(1, 2, {0})}};
  EXPECT_TRUE(same_seconds(busiest_cpu_s(chain, q), 0.8e-6));
  EXPECT_TRUE(same_seconds(busiest_rank_s(chain, q), kGap));
  plogp::Params intra = q;
  for (plogp::SizePoint& point : intra.table) {
    point.send_overhead_s *= 2;
    point.recv_overhead_s *= 2;
  }
  const Placement two_per_node = make_placement(PlacementKind::filled, 3, 2);
  EXPECT_TRUE(same_seconds(busiest_cpu_s(chain, q, &two_per_node, &intra), 1.3e-6));
  EXPECT_TRUE(same_seconds(busiest_cpu_s(chain, q, &two_per_node), 0.8e-6));  // no intra table
  EXPECT_EQ(busiest_cpu_s(Schedule{1, {}}, q), 0.0);
  EXPECT_THROW(busiest_cpu_s(Schedule{2, {send(0, 2)}}, q), std::invalid_argument);
}

// link_load: ranks 0-3 on two nodes of 2 (filled). Every rank sends 1000 bytes to every other
// (all at once, no dependencies): node 0's ranks send 2 x 2 messages to node 1 and receive as
// many, 4000 bytes each way, 4 us at 1 GB/s; the messages within a node load no link. A lock-step
// version (each rank's round t after its round t - 1 send and receive) holds 3 rounds, of which
// round 2 (rank r to r + 2) and rounds 1 and 3 (half of them) cross: the longest chain crosses 3
// times. At one rank per node every message crosses: 3000 bytes a rank, 3 us.
TEST(LinkLoad, TheBusiestNodesBytesAndTheCrossingsOnTheLongestChain) {
  Schedule flat{4, {}};
  Schedule rounds{4, {}};
  for (int t = 1; t < 4; ++t) {
    for (int r = 0; r < 4; ++r) {
      flat.messages.push_back(send(r, (r + t) % 4));
      std::vector<int> after;
      if (t > 1) after = {(t - 2) * 4 + r, (t - 2) * 4 + (r + 4 - (t - 1)) % 4};
      rounds.messages.push_back(send(r, (r + t) % 4, after));
    }
  }
  const Placement two = make_placement(PlacementKind::filled, 4, 2);
  const LinkLoad shared = link_load(flat, two, fair());
  EXPECT_TRUE(same_seconds(shared.busiest_node_s, 4000 * kAlpha));
  EXPECT_EQ(shared.chain_crossings, 1);
  EXPECT_TRUE(same_seconds(shared.floor_s(kL), 4000 * kAlpha + kL));
  const LinkLoad lock_step = link_load(rounds, two, fair());
  EXPECT_TRUE(same_seconds(lock_step.busiest_node_s, 4000 * kAlpha));
  EXPECT_EQ(lock_step.chain_crossings, 3);
  const LinkLoad alone = link_load(flat, make_placement(PlacementKind::one_per_node, 4, 1), fair());
  EXPECT_TRUE(same_seconds(alone.busiest_node_s, 3000 * kAlpha));
  // A chain 0 -> 1 -> 2 -> 3 crosses between the nodes once: its other hops stay in a node.
  const Schedule chain{4, {send(0, 1), send(1, 2, {0}), send(2, 3, {1})}};
  const LinkLoad hops = link_load(chain, two, fair());
  EXPECT_EQ(hops.chain_crossings, 1);
  EXPECT_TRUE(same_seconds(hops.busiest_node_s, 1000 * kAlpha));
  // A placement that does not cover the schedule's ranks loads nothing.
  EXPECT_EQ(link_load(flat, make_placement(PlacementKind::filled, 2, 2), fair()).busiest_node_s,
            0.0);
}

TEST(BusiestRank, ALockStepMessageHoldsBothItsEnds) {
  // A rendezvous down the chain 0 -> 1 -> 2: per hop a request (0 -> 1, posted), the receiver's
  // ready back (1 -> 0, after the request) and the data (0 -> 1, after the ready). The ready and
  // the data answer a message of their receiver: rank 1 receives one hop's data and ready and
  // sends the next hop's, one after the other, 4 lock-step gaps (g, 2 us each, all unposted) and
  // its request out, 1.3 us; without the ready the chain overlaps its receive and send, 2 us.
  const plogp::Params q = plogp::testing::two_gap_params();
  const auto unposted = [](Message m) {
    m.unposted = true;
    return m;
  };
  Schedule chain{3, {}};
  for (int hop = 0; hop < 2; ++hop) {
    const int first = 3 * hop;
    chain.messages.push_back(send(hop, hop + 1, hop == 0 ? std::vector<int>{}
                                                         : std::vector<int>{first - 1}));
    chain.messages.push_back(unposted(send(hop + 1, hop, {first})));
    chain.messages.push_back(unposted(send(hop, hop + 1, {first + 1})));
  }
  EXPECT_TRUE(same_seconds(busiest_rank_s(chain, q), 4 * 2e-6 + 1.3e-6));
  Schedule eager{3, {unposted(send(0, 1)), unposted(send(1, 2, {0}))}};
  EXPECT_TRUE(same_seconds(busiest_rank_s(eager, q), 2e-6));
}

TEST(BusiestRank, MessagesWithinANodeTakeTheIntraNodeTable) {
  const plogp::Params intra = intra_node_table();
  const Schedule s{3, {send(0, 1), send(0, 2)}};
  const Placement p{{0, 0, 1}};
  // 0 -> 1 within node 0 (0.3 us), 0 -> 2 across (2 us).
  EXPECT_TRUE(same_seconds(busiest_rank_s(s, software(), &p, &intra), 0.3e-6 + kGap));
  EXPECT_TRUE(same_seconds(busiest_rank_s(s, software()), 2 * kGap));
  const Schedule outside{2, {send(0, 2)}};
  EXPECT_THROW(busiest_rank_s(outside, software()), std::invalid_argument);
}

}  // namespace
}  // namespace collsel::models::contention

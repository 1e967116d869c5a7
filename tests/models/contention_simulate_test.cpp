// Placements of ranks on nodes (seed 002 section VI.D: RRN, RRP, random) and the schedule
// simulator on hand-made schedules whose times follow from the timing rules by hand
// (models/contention/schedule.cpp): a message costs o_s(m) + m alpha rho + L + o_r(m).
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

// linear_params(): o_s(m) = 0.2 us + 0.1 m ns, o_r(m) = 0.3 us + 0.2 m ns, L = 5 us.
constexpr double kSendOverhead = 2e-7 + 1000 * 1e-10;
constexpr double kRecvOverhead = 3e-7 + 1000 * 2e-10;
constexpr double kTransfer = kBytes * kAlpha;
// One uncontended message between two nodes.
constexpr double kOneMessage = kSendOverhead + kTransfer + kL + kRecvOverhead;

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

TEST(Simulate, OneMessageCostsOverheadsTransferAndLatency) {
  const Schedule s{2, {send(0, 1)}};
  const SimulationResult r = simulate(s, one_per_node(2), fair(), linear_params());
  EXPECT_TRUE(same_seconds(r.completion_s, kOneMessage));
  ASSERT_EQ(r.graph.size(), 1u);
  EXPECT_EQ(r.graph[0].src, 0);
  EXPECT_EQ(r.graph[0].dst, 1);
  EXPECT_TRUE(same_seconds(r.solution.start_s[0], kSendOverhead));
  EXPECT_TRUE(same_seconds(r.solution.end_s[0], kSendOverhead + kTransfer));
}

TEST(Simulate, TwoSendsFromOneNodeShareItUnderTheFairRule) {
  // Node 0 sends to nodes 1 and 2 at once: rho = outdegree 2, each transfer takes twice as long.
  const Schedule s{3, {send(0, 1), send(0, 2)}};
  const SimulationResult r = simulate(s, one_per_node(3), fair(), linear_params());
  EXPECT_TRUE(same_seconds(r.completion_s, kSendOverhead + 2 * kTransfer + kL + kRecvOverhead));
  ASSERT_EQ(r.solution.steps.size(), 1u);
  EXPECT_DOUBLE_EQ(r.solution.steps[0].rows[0].penalty, 2.0);
}

TEST(Simulate, ADependencyChainAddsUp) {
  // 0 -> 1, then 1 forwards to 2 once it has received: posted o_s after the first is seen.
  const Schedule s{3, {send(0, 1), send(1, 2, {0})}};
  const SimulationResult r = simulate(s, one_per_node(3), fair(), linear_params());
  EXPECT_TRUE(same_seconds(r.completion_s, 2 * kOneMessage));
  EXPECT_TRUE(same_seconds(r.solution.start_s[1], kOneMessage + kSendOverhead));
}

TEST(Simulate, IntraNodeMessagesCostTheCopyRateWithoutContention) {
  // Ranks 0 and 1 share node 0; two copies at once are not penalised.
  const Schedule s{2, {send(0, 1), send(1, 0)}};
  const Placement shared = make_placement(PlacementKind::filled, 2, 2);
  const SimulationResult r = simulate(s, shared, fair(), linear_params());
  EXPECT_EQ(r.graph[0].src, r.graph[0].dst);
  EXPECT_TRUE(same_seconds(r.completion_s, kSendOverhead + kBytes * kIntra + kL + kRecvOverhead));

  // Without a measured copy rate, the documented default applies.
  const SimulationResult d = simulate(s, shared, fair(0.0), linear_params());
  EXPECT_TRUE(same_seconds(
      d.completion_s,
      kSendOverhead + kBytes * alltoall::kDefaultCopySecondsPerByte + kL + kRecvOverhead));
}

TEST(Simulate, ThePlacementDecidesWhatContends) {
  // 0 -> 2 and 1 -> 3 at once.
  const Schedule s{4, {send(0, 2), send(1, 3)}};
  const auto time = [&](PlacementKind kind) {
    return simulate(s, make_placement(kind, 4, 2), fair(), linear_params()).completion_s;
  };
  // One per node: two independent links.
  EXPECT_TRUE(same_seconds(time(PlacementKind::one_per_node), kOneMessage));
  // Filled (nodes 0 0 1 1): both cross from node 0 to node 1, rho = 2.
  EXPECT_TRUE(same_seconds(time(PlacementKind::filled),
                           kSendOverhead + 2 * kTransfer + kL + kRecvOverhead));
  // Round-robin (nodes 0 1 0 1): both are copies within a node.
  EXPECT_TRUE(same_seconds(time(PlacementKind::round_robin),
                           kSendOverhead + kBytes * kIntra + kL + kRecvOverhead));
}

TEST(Simulate, AnEmptyScheduleTakesNoTime) {
  const SimulationResult r = simulate(Schedule{1, {}}, one_per_node(1), fair(), linear_params());
  EXPECT_EQ(r.completion_s, 0.0);
  EXPECT_TRUE(r.graph.empty());
}

TEST(Simulate, RejectsPlacementsAndRanksThatDoNotFit) {
  const Schedule s{3, {send(0, 2)}};
  EXPECT_THROW(simulate(s, one_per_node(2), fair(), linear_params()), std::invalid_argument);
  const Schedule outside{2, {send(0, 2)}};
  EXPECT_THROW(simulate(outside, one_per_node(3), fair(), linear_params()),
               std::invalid_argument);
}

}  // namespace
}  // namespace collsel::models::contention

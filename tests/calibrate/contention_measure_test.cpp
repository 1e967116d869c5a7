// The pure parts of the contention-graph and LogfP calibration: where ranks are, which rank
// takes which communication, the graph set, the shape matching of the reverse solving's later
// steps, and the analysis that turns measured times into the [contention] section (fed with
// times a known rule would give, so what it must recover is known). No MPI call is made.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "calibrate/contention_measure.hpp"
#include "calibrate/logfp_measure.hpp"
#include "calibrate/node_layout.hpp"
#include "models/contention/penalty_fit.hpp"

namespace collsel::calibrate {
namespace {

namespace mc = models::contention;

NodeLayout uniform(int nodes, int per_node) {
  std::vector<std::string> names;
  for (int n = 0; n < nodes; ++n) {
    for (int k = 0; k < per_node; ++k) names.push_back("h" + std::to_string(n));
  }
  return layout_from_names(names);
}

TEST(NodeLayout, NodesInOrderOfFirstAppearance) {
  const NodeLayout l = layout_from_names({"b", "b", "a", "c", "a"});
  EXPECT_EQ(l.node_of_rank, (std::vector<int>{0, 0, 1, 2, 1}));
  EXPECT_EQ(l.ranks_of_node, (std::vector<std::vector<int>>{{0, 1}, {2, 4}, {3}}));
  EXPECT_EQ(l.node_names, (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(l.nodes(), 3);
  EXPECT_EQ(l.ranks(), 5);
  EXPECT_EQ(l.max_ranks_per_node(), 2);
  EXPECT_FALSE(l.fake);
}

TEST(NodeLayout, FakeNodesAreBlocksOfConsecutiveRanks) {
  const NodeLayout four = fake_layout(4, 2);
  EXPECT_EQ(four.node_of_rank, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_TRUE(four.fake);
  EXPECT_EQ(fake_layout(5, 2).node_of_rank, (std::vector<int>{0, 0, 0, 1, 1}));
  EXPECT_EQ(fake_layout(3, 3).max_ranks_per_node(), 1);
}

TEST(AssignRanks, EachEndpointTakesTheNextRankOfItsNode) {
  // 3 nodes of 2: ranks 0,1 | 2,3 | 4,5. Seed 002 Fig. 1: node 0 sends to 1 and 2, 2 sends to 1.
  const NodeLayout l = uniform(3, 2);
  const std::vector<Edge> fig1{{0, 1}, {0, 2}, {2, 1}};
  const RankAssignment a = assign_ranks(l, fig1);
  ASSERT_TRUE(a.ok()) << a.error;
  EXPECT_EQ(a.sender, (std::vector<int>{0, 1, 5}));
  EXPECT_EQ(a.receiver, (std::vector<int>{2, 4, 3}));
  // An intra-node communication: two ranks of node 1.
  const std::vector<Edge> self{{1, 1}};
  const RankAssignment s = assign_ranks(l, self);
  ASSERT_TRUE(s.ok()) << s.error;
  EXPECT_EQ(s.sender, (std::vector<int>{2}));
  EXPECT_EQ(s.receiver, (std::vector<int>{3}));
}

TEST(AssignRanks, InfeasibleGraphsSayWhy) {
  const NodeLayout l = uniform(3, 2);
  const std::vector<Edge> star3{{0, 1}, {0, 2}, {0, 1}};
  const RankAssignment a = assign_ranks(l, star3);
  EXPECT_FALSE(a.ok());
  EXPECT_TRUE(a.sender.empty());
  EXPECT_EQ(a.error, "node 0 (h0) needs 3 ranks (3 sending, 0 receiving) but has 2");
  const std::vector<Edge> far{{0, 3}};
  EXPECT_EQ(assign_ranks(l, far).error, "the graph has node 3 but the job has 3 nodes");
  // One rank per node: a node cannot both send and receive.
  const std::vector<Edge> two_way{{0, 1}, {1, 0}};
  EXPECT_EQ(assign_ranks(uniform(2, 1), two_way).error,
            "node 0 (h0) needs 2 ranks (1 sending, 1 receiving) but has 1");
}

std::vector<std::string> names(const std::vector<NamedGraph>& graphs) {
  std::vector<std::string> out;
  for (const auto& g : graphs) out.push_back(g.name);
  return out;
}

TEST(CalibrationGraphs, FewestEdgesFirst) {
  const auto g = calibration_graphs(2);
  EXPECT_EQ(names(g), (std::vector<std::string>{"pair", "out-star-2", "in-star-2", "parallel-2",
                                                "chain", "two-way", "fig1", "cycle-3", "out-in-2",
                                                "in-out-2", "bipartite-2x2"}));
  EXPECT_TRUE(std::is_sorted(g.begin(), g.end(), [](const auto& a, const auto& b) {
    return a.edges.size() < b.edges.size();
  }));
  const auto out_in = std::find_if(g.begin(), g.end(), [](auto& x) { return x.name == "out-in-2"; });
  EXPECT_EQ(out_in->edges, (std::vector<Edge>{{0, 1}, {0, 2}, {3, 1}}));
  // Degree 3 adds its stars, 3 parallel communications and the Fig. 4-like pair of graphs.
  const auto g3 = calibration_graphs(3);
  const auto has = [&](const std::string& n) {
    return std::any_of(g3.begin(), g3.end(), [&](auto& x) { return x.name == n; });
  };
  EXPECT_TRUE(has("out-star-3") && has("in-star-3") && has("parallel-3"));
  const auto in_out3 =
      std::find_if(g3.begin(), g3.end(), [](auto& x) { return x.name == "in-out-3"; });
  ASSERT_NE(in_out3, g3.end());
  EXPECT_EQ(in_out3->edges, (std::vector<Edge>{{1, 0}, {2, 0}, {3, 0}, {1, 4}, {1, 5}}));
  EXPECT_EQ(names(calibration_graphs(1)), (std::vector<std::string>{"pair"}));
}

TEST(CalibrationGraphs, WhatFitsTwoRanksPerNode) {
  const auto fitting = [](const NodeLayout& l) {
    std::vector<std::string> out;
    for (const auto& g : calibration_graphs(l.max_ranks_per_node())) {
      if (assign_ranks(l, g.edges).ok()) out.push_back(g.name);
    }
    return out;
  };
  // Two nodes: only what joins two nodes.
  EXPECT_EQ(fitting(uniform(2, 2)), (std::vector<std::string>{"pair", "parallel-2", "two-way"}));
  // Four nodes hold the whole degree-2 set.
  EXPECT_EQ(fitting(uniform(4, 2)).size(), calibration_graphs(2).size());
}

TEST(MatchShape, RenamesNodesAndKeepsEdgeRoles) {
  const std::vector<Edge> out_star{{0, 1}, {0, 2}};
  const std::vector<Edge> step{{5, 7}, {5, 9}};
  EXPECT_EQ(match_shape(step, out_star), (std::vector<int>{0, 1}));
  const std::vector<Edge> in_star{{1, 0}, {2, 0}};
  EXPECT_FALSE(match_shape(step, in_star).has_value());
  // out-in-2 renamed and reordered: 2>1 is the edge whose destination has two senders (0>1).
  const std::vector<Edge> out_in{{0, 1}, {0, 2}, {3, 1}};
  const std::vector<Edge> renamed{{7, 1}, {2, 5}, {2, 1}};
  EXPECT_EQ(match_shape(renamed, out_in), (std::vector<int>{2, 1, 0}));
  const std::vector<Edge> parallel{{3, 4}, {3, 4}}, pattern{{0, 1}, {0, 1}};
  EXPECT_EQ(match_shape(parallel, pattern), (std::vector<int>{0, 1}));
  // The same degrees, another shape: a 2-cycle and an edge against a path of three edges.
  const std::vector<Edge> cycle_and_edge{{0, 1}, {1, 0}, {2, 3}}, path{{0, 1}, {1, 2}, {2, 3}};
  EXPECT_FALSE(match_shape(cycle_and_edge, path).has_value());
  const std::vector<Edge> three{{0, 1}, {0, 2}, {0, 3}};
  EXPECT_FALSE(match_shape(step, three).has_value());
}

TEST(MeasuredRule, MeasuredShapesFirstThenTheFallback) {
  // out-in-2 has no symmetry, so each measured penalty has one place in a renamed step.
  std::vector<mc::MeasuredGraph> measured{{"out-in-2", {{0, 1}, {0, 2}, {3, 1}}, {1.7, 1.3, 1.45}},
                                          {"in-star-2", {{1, 0}, {2, 0}}, {0.9, 0.9}}};
  const mc::Rule rule = measured_rule(measured, mc::make_rule(mc::RuleKind::fair));
  const std::vector<Edge> renamed{{7, 1}, {2, 5}, {2, 1}}, in{{4, 3}, {6, 3}}, chain{{1, 0}, {0, 2}};
  EXPECT_EQ(rule.penalties(renamed), (std::vector<double>{1.45, 1.3, 1.7}));
  EXPECT_EQ(rule.penalties(in), (std::vector<double>{1.0, 1.0}));  // 0.9 raised to 1
  EXPECT_EQ(rule.penalties(chain), (std::vector<double>{1.0, 1.0}));  // fair
  const std::vector<Edge> star{{0, 1}, {0, 2}};
  EXPECT_EQ(rule.penalties(star), (std::vector<double>{2.0, 2.0}));  // fair
}

TEST(PredictDurations, DurationsFromEachStart) {
  // Out-star of 2 under the fair rule, alpha m = T = 10 ms; b starts at T / 2. a alone sends
  // half its bytes by T / 2; both at penalty 2 until a ends at 3T / 2 (b has half sent); b alone
  // ends at 2T. Durations: a 3T / 2, b 3T / 2.
  const std::vector<Edge> star{{0, 1}, {0, 2}};
  const double bytes = 1e6, alpha = 1e-8, T = 1e-2;
  const auto t = predict_durations(star, std::vector<double>{0.0, T / 2}, bytes, alpha,
                                   mc::make_rule(mc::RuleKind::fair));
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], 1.5 * T, 1e-12);
  EXPECT_NEAR(t[1], 1.5 * T, 1e-12);
  // All at once: both 2T.
  const auto together = predict_durations(star, {}, bytes, alpha, mc::make_rule(mc::RuleKind::fair));
  EXPECT_NEAR(together[0], 2 * T, 1e-12);
  EXPECT_NEAR(together[1], 2 * T, 1e-12);
}

// Completion times of every calibration graph as `truth` would make them, plus the pair.
std::vector<GraphMeasurement> synthetic(const mc::Rule& truth, double bytes, double alpha,
                                        int degree) {
  std::vector<GraphMeasurement> out;
  for (const NamedGraph& g : calibration_graphs(degree)) {
    GraphMeasurement m{g, {}, {}, {}};
    m.times.duration_s = predict_durations(g.edges, {}, bytes, alpha, truth);
    out.push_back(std::move(m));
  }
  return out;
}

TEST(AnalyseContention, RecoversTheGigabitEthernetModelItWasFedWith) {
  const mc::GigeParams paper{0.75, 0.036, 0.115};  // seed 002 section V.A
  const double bytes = 1048576, alpha = 8.5e-8;
  const ContentionCalibration c =
      analyse_contention(synthetic(mc::make_rule(mc::RuleKind::gige, paper), bytes, alpha, 2),
                         bytes, 2.5e-4);
  ASSERT_TRUE(c.params.has_value()) << c.skipped;
  EXPECT_EQ(c.params->rule, mc::RuleKind::gige);
  EXPECT_EQ(c.params->use, mc::Use::automatic);
  EXPECT_NEAR(c.t_ref_s, bytes * alpha, 1e-15);
  EXPECT_NEAR(c.params->alpha_s_per_byte, alpha, 1e-20);
  EXPECT_NEAR(c.params->intra_alpha_s_per_byte, 2.5e-4 / bytes, 1e-20);
  EXPECT_EQ(c.params->reference_bytes, bytes);
  EXPECT_NEAR(c.params->gige.beta, 0.75, 1e-9);
  EXPECT_NEAR(c.params->gige.gamma_i, 0.036, 1e-6);
  EXPECT_NEAR(c.params->gige.gamma_o, 0.115, 1e-6);
  // Every later step of the degree-2 set is a graph measured before it, so the reverse solving
  // gives back the model's own first-step penalties; every graph but the pair is stored.
  ASSERT_EQ(c.params->measured.size(), calibration_graphs(2).size() - 1);
  for (const mc::MeasuredGraph& g : c.params->measured) {
    const auto expected = mc::gige_penalties(g.edges, paper);
    ASSERT_EQ(g.penalties.size(), expected.size()) << g.name;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_NEAR(g.penalties[i], expected[i], 1e-9) << g.name << " edge " << i;
    }
  }
  // Scores in rule order; the truth predicts itself, the others do not.
  ASSERT_EQ(c.scores.size(), 4u);
  EXPECT_EQ(c.scores[2].rule, mc::RuleKind::gige);
  EXPECT_LT(c.scores[2].mean_abs_rel, 1e-9);
  EXPECT_GT(c.scores[0].mean_abs_rel, 0.05);  // fair: 2 where Gigabit Ethernet says 1.5
  EXPECT_EQ(c.scores[2].comms, 26);  // the 10 graphs with 2..4 edges
}

TEST(AnalyseContention, PicksTheInfinibandRuleForInfinibandTimes) {
  const double bytes = 1 << 20, alpha = 1e-9;
  const ContentionCalibration c = analyse_contention(
      synthetic(mc::make_rule(mc::RuleKind::infiniband), bytes, alpha, 3), bytes, 0.0);
  ASSERT_TRUE(c.params.has_value()) << c.skipped;
  EXPECT_EQ(c.params->rule, mc::RuleKind::infiniband);
  EXPECT_EQ(c.params->intra_alpha_s_per_byte, 0.0);
  EXPECT_LT(c.scores[1].mean_abs_rel, c.scores[0].mean_abs_rel);
}

TEST(AnalyseContention, LaterStepsFromMeasuredGraphsBeatTheFairReading) {
  // The gige rule's fig1 times, reverse-solved with the fair rule for the later steps, do not
  // give the rule's penalties back (its 2-edge steps have 1.5, fair says 2); with the steps taken
  // from the graphs measured before, they do.
  const mc::GigeParams paper{0.75, 0.036, 0.115};
  const mc::Rule truth = mc::make_rule(mc::RuleKind::gige, paper);
  const std::vector<Edge> fig1{{0, 1}, {0, 2}, {2, 1}};
  const double bytes = 1e6, alpha = 1e-8;
  const auto times = predict_durations(fig1, {}, bytes, alpha, truth);
  const auto expected = mc::gige_penalties(fig1, paper);
  const auto fair_reading =
      mc::first_step_penalties(fig1, times, bytes, alpha, mc::make_rule(mc::RuleKind::fair));
  std::vector<mc::MeasuredGraph> smaller;
  for (const std::vector<Edge>& e : std::vector<std::vector<Edge>>{
           {{0, 1}, {0, 2}}, {{1, 0}, {2, 0}}, {{1, 0}, {0, 2}}}) {
    smaller.push_back({"", e, mc::gige_penalties(e, paper)});
  }
  const auto measured_reading = mc::first_step_penalties(
      fig1, times, bytes, alpha, measured_rule(smaller, mc::make_rule(mc::RuleKind::fair)));
  double fair_error = 0.0;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(measured_reading[i], expected[i], 1e-9) << i;
    fair_error = std::max(fair_error, std::abs(fair_reading[i] - expected[i]));
  }
  EXPECT_GT(fair_error, 0.02);
}

TEST(AnalyseContention, WithoutThePairThereIsNoSection) {
  std::vector<GraphMeasurement> only_star{{{"out-star-2", {{0, 1}, {0, 2}}}, {}, {}, {}}};
  only_star[0].times.duration_s = {0.2, 0.2};
  const ContentionCalibration c = analyse_contention(only_star, 1e6, 0.0);
  EXPECT_FALSE(c.params.has_value());
  EXPECT_NE(c.skipped.find("the pair"), std::string::npos) << c.skipped;
}

TEST(ScoreRules, RelativeErrorsAsSeed002Defines) {
  // One out-star-2 measured at 1.8 T_ref: fair predicts 2 T_ref (E_rel +11.1 %), gige with
  // beta 0.75 predicts 1.5 T_ref (-16.7 %).
  const double bytes = 1e6, alpha = 1e-8, t_ref = 1e-2;
  std::vector<GraphMeasurement> g{{{"out-star-2", {{0, 1}, {0, 2}}}, {}, {}, {}}};
  g[0].times.duration_s = {1.8 * t_ref, 1.8 * t_ref};
  const auto scores = score_rules(g, bytes, alpha, {0.75, 0.036, 0.115});
  ASSERT_EQ(scores.size(), 4u);
  EXPECT_NEAR(scores[0].mean_abs_rel, 0.2 / 1.8, 1e-9);
  EXPECT_NEAR(scores[2].mean_abs_rel, 0.3 / 1.8, 1e-9);
  EXPECT_EQ(scores[0].comms, 2);
  EXPECT_EQ(best_rule(scores), mc::RuleKind::fair);
  EXPECT_NEAR(relative_error(0.9, 1.0), -0.1, 1e-15);
}

TEST(ContentionSkipReason, NeedsTwoNodesAndTwoRanksOnOne) {
  EXPECT_NE(contention_skip_reason(uniform(1, 4)).find("all 4 ranks share one node (h0)"),
            std::string::npos);
  EXPECT_NE(contention_skip_reason(uniform(4, 1)).find("one rank per node"), std::string::npos);
  EXPECT_EQ(contention_skip_reason(uniform(2, 2)), "");
}

TEST(PeerOrder, OtherNodesFirstOnePerNodeInTurn) {
  // 3 nodes of 2: rank 0's node holds 0, 1; then 2, 3 and 4, 5.
  EXPECT_EQ(peer_order(uniform(3, 2)), (std::vector<int>{2, 4, 3, 5, 1}));
  EXPECT_EQ(peer_order(uniform(1, 4)), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(peer_order(layout_from_names({"a", "b", "a", "c", "c", "c"})),
            (std::vector<int>{1, 3, 4, 5, 2}));
}

}  // namespace
}  // namespace collsel::calibrate

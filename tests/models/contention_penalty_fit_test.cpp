// The reverse solve of seed 003 section 3.3 (first-step penalties from measured times), checked
// against the paper's three-communication system and as the inverse of the forward solver; and
// the checks of a [contention] section (Params::invalid_reason), whose measured graphs it fills.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/contention/graph.hpp"
#include "models/contention/params.hpp"
#include "models/contention/penalty_fit.hpp"
#include "models/contention/rules.hpp"
#include "tests/models/contention_fixtures.hpp"

namespace collsel::models::contention {
namespace {

using namespace fixtures;

// Forward: all edges start at 0 with kBytes; the measured times are the solver's.
std::vector<double> forward(const std::vector<Edge>& edges, const Rule& rule) {
  std::vector<Communication> comms;
  for (const Edge& e : edges) comms.push_back(comm("", e.src, e.dst, kBytes));
  return solve(comms, rule, {kAlpha, 0.0}).end_s;
}

void expect_same(const std::vector<double>& got, const std::vector<double>& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i], expected[i], 1e-9 * expected[i]) << "edge " << i;
  }
}

TEST(ContentionPenaltyFit, PapersThreeCommunicationSystem) {
  // Three communications ending at T1 < T2 < T3; the two-edge graph of step 2 has penalties
  // rho_22, rho_32 (from a smaller measured graph), the last step rho_33 = 1. Eq. 3: step 2 lasts
  // T2 - T1, step 3 T3 - T2.
  const std::vector<Edge> edges{{0, 1}, {0, 2}, {3, 2}};
  const double m = 1e6, alpha = 1e-9, T1 = 2.4e-3, T2 = 3.1e-3, T3 = 3.5e-3;
  const double rho22 = 1.6, rho32 = 2.2;
  const Rule later{"later", [&](std::span<const Edge> e) {
                     if (e.size() == 2) return std::vector<double>{rho22, rho32};
                     return std::vector<double>(e.size(), 1.0);
                   }};
  const std::vector<double> rho =
      first_step_penalties(edges, std::vector{T1, T2, T3}, m, alpha, later);
  const double m21 = m - (T2 - T1) / (alpha * rho22);
  const double m31 = m - (T2 - T1) / (alpha * rho32) - (T3 - T2) / (alpha * 1.0);
  expect_same(rho, {T1 / (alpha * m), T1 / (alpha * m21), T1 / (alpha * m31)});
  // Order of the input does not matter: the times say who ends first.
  const std::vector<Edge> reversed{{3, 2}, {0, 2}, {0, 1}};
  const Rule later_reversed{"later", [&](std::span<const Edge> e) {
                              if (e.size() == 2) return std::vector<double>{rho32, rho22};
                              return std::vector<double>(e.size(), 1.0);
                            }};
  const std::vector<double> back =
      first_step_penalties(reversed, std::vector{T3, T2, T1}, m, alpha, later_reversed);
  expect_same(back, {rho[2], rho[1], rho[0]});
}

TEST(ContentionPenaltyFit, InvertsTheSolverWithTheInfinibandRule) {
  const Rule ib = make_rule(RuleKind::infiniband);
  const std::vector<std::vector<Edge>> graphs{
      {{0, 1}, {0, 2}, {0, 3}, {3, 1}, {3, 2}},          // Fig. 2 graph 3
      {{0, 1}, {0, 2}, {3, 1}, {4, 2}},                  // Fig. 2 graph 4
      {{0, 1}, {0, 2}, {3, 2}, {4, 2}, {5, 1}},          // Fig. 4 graph A
      {{0, 1}, {0, 2}, {0, 3}, {4, 1}, {4, 5}, {6, 5}},  // Fig. 3
      {{0, 1}, {0, 1}, {2, 1}, {3, 4}, {3, 0}, {4, 0}, {5, 0}},
  };
  for (const auto& edges : graphs) {
    const std::vector<double> measured = forward(edges, ib);
    expect_same(first_step_penalties(edges, measured, kBytes, kAlpha, ib),
                infiniband_penalties(edges));
  }
}

TEST(ContentionPenaltyFit, InvertsTheSolverWithTheFairRule) {
  const Rule fair = make_rule(RuleKind::fair);
  const std::vector<Edge> edges{{0, 1}, {0, 2}, {3, 1}, {3, 4}, {5, 4}, {6, 4}, {1, 6}};
  expect_same(first_step_penalties(edges, forward(edges, fair), kBytes, kAlpha, fair),
              fair_penalties(edges));
}

TEST(ContentionPenaltyFit, MeasuredTimesOfFig4GraphB) {
  // Fig. 4 graph B measured (T_m). Every distinct time is a step: e ends first, then d, c (the
  // InfiniBand rule gives a, b 4 then 3 in those two short steps), then b with a, b alone at 2,
  // then a alone. e: T_1 / (alpha m) = 3.7428 where the rule says 3.5; a: 4.9349 where it says 5.
  const std::vector<Edge> edges{{0, 1}, {0, 2}, {3, 2}, {4, 2}, {5, 2}};
  const std::vector<double> T{0.045236, 0.045228, 0.040073, 0.040072, 0.040071};
  const std::vector<double> rho =
      first_step_penalties(edges, T, kBytes, kAlpha, make_rule(RuleKind::infiniband));
  const double a = kAlpha;
  const double later_a = (T[3] - T[4]) / (a * 4) + (T[2] - T[3]) / (a * 3) +
                         (T[1] - T[2]) / (a * 2) + (T[0] - T[1]) / (a * 1);
  EXPECT_NEAR(rho[0], T[4] / (a * (kBytes - later_a)), 1e-9);
  EXPECT_NEAR(rho[0], 4.9349, 0.0001);
  EXPECT_NEAR(rho[4], T[4] / (a * kBytes), 1e-9);
  EXPECT_NEAR(rho[4], 3.7428, 0.0001);
  // d ended 1 us after e, a step where the rule gave it 1 + 1/delta+(c) + 1/delta+(b) = 2.5; c
  // 1 us later still, then the only single sender into node 2 beside b: (b), 1 + 1/(3 - 1).
  const double step2 = (T[3] - T[4]) / (a * 2.5);
  EXPECT_NEAR(rho[3], T[4] / (a * (kBytes - step2)), 1e-9);
  EXPECT_NEAR(rho[2], T[4] / (a * (kBytes - step2 - (T[2] - T[3]) / (a * 1.5))), 1e-9);
}

TEST(ContentionPenaltyFit, BadInput) {
  const std::vector<Edge> two{{0, 1}, {0, 2}};
  const Rule fair = make_rule(RuleKind::fair);
  EXPECT_THROW(first_step_penalties(two, std::vector{1e-3}, kBytes, kAlpha, fair),
               std::invalid_argument);
  EXPECT_THROW(first_step_penalties(two, std::vector{1e-3, 0.0}, kBytes, kAlpha, fair),
               std::invalid_argument);
  EXPECT_THROW(first_step_penalties(two, std::vector{1e-3, 2e-3}, 0.0, kAlpha, fair),
               std::invalid_argument);
  EXPECT_THROW(first_step_penalties(two, std::vector{1e-3, 2e-3}, kBytes, -1.0, fair),
               std::invalid_argument);
  EXPECT_TRUE(first_step_penalties({}, {}, kBytes, kAlpha, fair).empty());
  // The second edge ends so late that, alone at rho 1 after the first, it would have moved more
  // than all its bytes: the times do not fit the rule.
  try {
    first_step_penalties(two, std::vector{1e-3, 1.0}, 1e6, 1e-9, fair);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'fair'"), std::string::npos) << e.what();
  }
  const Rule broken{"broken", [](std::span<const Edge>) { return std::vector<double>{}; }};
  EXPECT_THROW(first_step_penalties(two, std::vector{1e-3, 1.5e-3}, 1e6, 1e-9, broken),
               std::invalid_argument);
}

// --- Params::invalid_reason ---

Params valid() {
  Params p;
  p.rule = RuleKind::infiniband;
  p.alpha_s_per_byte = kAlpha;
  p.intra_alpha_s_per_byte = 2.5e-10;
  p.reference_bytes = kBytes;
  p.measured.push_back({"out-star-2", {{0, 1}, {0, 2}}, {2.0, 2.0}});
  return p;
}

std::string reason(const Params& p) { return p.invalid_reason().value_or("valid"); }

TEST(ContentionParams, ValidAndEachProblem) {
  EXPECT_EQ(reason(valid()), "valid");

  Params p = valid();
  p.alpha_s_per_byte = 0.0;
  EXPECT_NE(reason(p).find("alpha_s_per_byte"), std::string::npos) << reason(p);
  p.alpha_s_per_byte = INFINITY;
  EXPECT_NE(reason(p).find("alpha_s_per_byte"), std::string::npos);

  p = valid();
  p.intra_alpha_s_per_byte = -1e-10;
  EXPECT_NE(reason(p).find("intra_alpha_s_per_byte"), std::string::npos);
  p.intra_alpha_s_per_byte = 0.0;  // unknown copy cost: allowed
  EXPECT_EQ(reason(p), "valid");

  p = valid();
  p.reference_bytes = NAN;
  EXPECT_NE(reason(p).find("reference_bytes"), std::string::npos);

  p = valid();
  p.gige.beta = 0.0;
  EXPECT_EQ(reason(p), "valid");  // not the gige rule: unused
  p.rule = RuleKind::gige;
  EXPECT_NE(reason(p).find("gige_beta"), std::string::npos);
  p.gige.beta = 0.75;
  p.gige.gamma_o = -0.2;  // seed 002's formula can give a negative gamma
  EXPECT_EQ(reason(p), "valid");
  p.gige.gamma_i = NAN;
  EXPECT_NE(reason(p).find("gige_gamma_i"), std::string::npos);

  p = valid();
  p.rule = static_cast<RuleKind>(17);
  EXPECT_NE(reason(p).find("fair, infiniband, gige, myrinet"), std::string::npos) << reason(p);
}

TEST(ContentionParams, MeasuredGraphs) {
  Params p = valid();
  p.measured[0].penalties = {2.0};
  EXPECT_NE(reason(p).find("1 penalties for 2 edges"), std::string::npos) << reason(p);
  EXPECT_NE(reason(p).find("'out-star-2'"), std::string::npos) << reason(p);

  p = valid();
  p.measured[0].penalties = {0.9, 2.0};  // below 1 is a possible measurement
  EXPECT_EQ(reason(p), "valid");
  p.measured[0].penalties = {0.0, 2.0};
  EXPECT_NE(reason(p).find("penalty"), std::string::npos);

  p = valid();
  p.measured[0].edges = {{0, 1}, {2, 2}};
  EXPECT_NE(reason(p).find("self-loop"), std::string::npos);
  p.measured[0].edges = {{0, 1}, {-1, 2}};
  EXPECT_NE(reason(p).find("negative"), std::string::npos);

  p = valid();
  p.measured.push_back({"", {}, {}});
  EXPECT_NE(reason(p).find("graph #2 has no edges"), std::string::npos) << reason(p);
}

}  // namespace
}  // namespace collsel::models::contention

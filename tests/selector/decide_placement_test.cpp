// decide() with a placement of ranks on nodes: when the model's [contention] section says so, the
// algorithms with a schedule are predicted by the contention simulator instead of their closed
// forms (selector/decide.hpp). Hand-made algorithms whose simulated times follow by hand from
// models/contention/schedule.cpp's timing rules, then the real registry. No MPI.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "conf/embedded.hpp"
#include "models/contention/schedule.hpp"
#include "selector/decide.hpp"

namespace collsel {
namespace {

namespace mc = models::contention;

constexpr std::uint64_t kBytes = 1000;
constexpr double kAlpha = 1e-9;   // 1 us per message between nodes, alone
constexpr double kIntra = 1e-10;  // 0.1 us per message within a node

// Closed forms: fan 1 s, line 2 s, unscheduled 3 s, far slower than any simulated time, so a
// simulated entry is recognisable by its value alone.
Prediction closed_1(const models::ModelFile&, const CallShape&, const Policy&) { return {1.0, {}}; }
Prediction closed_2(const models::ModelFile&, const CallShape&, const Policy&) { return {2.0, {}}; }
Prediction closed_3(const models::ModelFile&, const CallShape&, const Policy&) { return {3.0, {}}; }
std::optional<std::string> always(const CallShape&) { return std::nullopt; }

mc::Message send(int src, int dst, std::vector<int> after = {}) {
  return {src, dst, kBytes, std::move(after)};
}

// Rank 0 sends to every other rank at once.
mc::Schedule fan(const CallShape& s, const AlgoParams&) {
  mc::Schedule out{s.comm_size, {}};
  for (int r = 1; r < s.comm_size; ++r) out.messages.push_back(send(0, r));
  return out;
}

// 0 -> 1 -> 2 -> ...: each rank forwards once it has received.
mc::Schedule line(const CallShape& s, const AlgoParams&) {
  mc::Schedule out{s.comm_size, {}};
  for (int r = 1; r < s.comm_size; ++r) {
    out.messages.push_back(r == 1 ? send(0, 1) : send(r - 1, r, {r - 2}));
  }
  return out;
}

mc::Schedule too_long(const CallShape& s, const AlgoParams&) {
  mc::Schedule out{s.comm_size, {}};
  out.messages.assign(kMaxSimulatedMessages + 1, send(0, 1));
  return out;
}

// Two messages waiting for each other: the solver rejects the cycle.
mc::Schedule cyclic(const CallShape& s, const AlgoParams&) {
  return {s.comm_size, {send(0, 1, {1}), send(1, 0, {0})}};
}

const AlgorithmView kTable[] = {
    {"bcast.fan", "root sends to all at once", closed_1, always, false, fan},
    {"bcast.line", "chain", closed_2, always, false, line},
    {"bcast.unscheduled", "no schedule: always the closed form", closed_3, always, false, nullptr},
};

const AlgorithmView kGuarded[] = {
    {"bcast.too_long", "more messages than the cap", closed_1, always, false, too_long},
    {"bcast.cyclic", "a schedule the solver rejects", closed_2, always, false, cyclic},
};

// pLogP with no overheads and no latency: a simulated time is pure transfer.
models::ModelFile model(std::optional<mc::Use> use) {
  models::ModelFile f;
  f.plogp.latency_s = 0.0;
  f.plogp.table = {{0, 1e-6, 0.0, 0.0}, {1 << 20, 1e-3, 0.0, 0.0}};
  if (use) {
    mc::Params c;
    c.rule = mc::RuleKind::fair;
    c.use = *use;
    c.alpha_s_per_byte = kAlpha;
    c.intra_alpha_s_per_byte = kIntra;
    f.contention = c;
  }
  return f;
}

CallShape shape(int ranks = 4) { return {Collective::bcast, ranks, kBytes, 0}; }

mc::Placement filled(int ranks = 4) { return mc::make_placement(mc::PlacementKind::filled, ranks, 2); }
mc::Placement one_per_node(int ranks = 4) {
  return mc::make_placement(mc::PlacementKind::one_per_node, ranks, 1);
}

::testing::AssertionResult near(double actual, double expected) {
  if (std::fabs(actual - expected) <= 1e-9 * expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << actual << " s, expected " << expected << " s";
}

void expect_closed_forms(const Decision& d) {
  ASSERT_EQ(d.table.size(), 3u);
  EXPECT_EQ(d.table[0].predicted_s, 1.0);
  EXPECT_EQ(d.table[1].predicted_s, 2.0);
  EXPECT_EQ(d.table[2].predicted_s, 3.0);
  for (const CostEntry& e : d.table) EXPECT_FALSE(e.simulated) << e.name;
  EXPECT_EQ(d.algorithm(), "bcast.fan");
}

// Ranks 0 1 | 2 3 on two nodes (filled), fair rule:
//   fan:  0->1 a copy (0.1 us); 0->2 and 0->3 leave node 0 for node 1 together, rho 2: 2 us.
//   line: 0->1 copy, then 1->2 across (1 us), then 2->3 copy: 1.2 us.
constexpr double kFanFilled = 2 * kBytes * kAlpha;
constexpr double kLineFilled = kBytes * kIntra + kBytes * kAlpha + kBytes * kIntra;

TEST(DecidePlacement, AlwaysSimulatesAndTheWinnerChanges) {
  const auto m = model(mc::Use::always);
  const mc::Placement p = filled();
  const Decision d = decide(shape(), kTable, {nullptr, &m}, Policy{}, &p);
  ASSERT_EQ(d.table.size(), 3u);
  EXPECT_TRUE(d.table[0].simulated);
  EXPECT_TRUE(near(d.table[0].predicted_s, kFanFilled));
  EXPECT_TRUE(d.table[1].simulated);
  EXPECT_TRUE(near(d.table[1].predicted_s, kLineFilled));
  // Without a schedule the closed form stands.
  EXPECT_FALSE(d.table[2].simulated);
  EXPECT_EQ(d.table[2].predicted_s, 3.0);
  EXPECT_EQ(d.algorithm(), "bcast.line");
  EXPECT_EQ(d.rung, Rung::default_model);
}

TEST(DecidePlacement, AlwaysSimulatesOnePerNodeToo) {
  // Four nodes: fan leaves node 0 three times at once (rho 3), line crosses three links in turn.
  const auto m = model(mc::Use::always);
  const mc::Placement p = one_per_node();
  const Decision d = decide(shape(), kTable, {nullptr, &m}, Policy{}, &p);
  EXPECT_TRUE(d.table[0].simulated);
  EXPECT_TRUE(near(d.table[0].predicted_s, 3 * kBytes * kAlpha));
  EXPECT_TRUE(near(d.table[1].predicted_s, 3 * kBytes * kAlpha));
}

TEST(DecidePlacement, NeverKeepsTheClosedForms) {
  const auto m = model(mc::Use::never);
  const mc::Placement p = filled();
  expect_closed_forms(decide(shape(), kTable, {nullptr, &m}, Policy{}, &p));
}

TEST(DecidePlacement, AutomaticSimulatesOnlyWhenANodeHostsSeveralRanks) {
  const auto m = model(mc::Use::automatic);
  const mc::Placement spread = one_per_node();
  expect_closed_forms(decide(shape(), kTable, {nullptr, &m}, Policy{}, &spread));

  const mc::Placement shared = filled();
  const Decision d = decide(shape(), kTable, {nullptr, &m}, Policy{}, &shared);
  EXPECT_TRUE(d.table[0].simulated);
  EXPECT_TRUE(near(d.table[1].predicted_s, kLineFilled));
  EXPECT_EQ(d.algorithm(), "bcast.line");
}

TEST(DecidePlacement, WithoutASectionOrAPlacementTheClosedFormsDecide) {
  const auto bare = model(std::nullopt);
  const mc::Placement p = filled();
  expect_closed_forms(decide(shape(), kTable, {nullptr, &bare}, Policy{}, &p));
  const auto m = model(mc::Use::always);
  expect_closed_forms(decide(shape(), kTable, {nullptr, &m}, Policy{}));
}

TEST(DecidePlacement, ThePlacementMustCoverTheCommunicator) {
  const auto m = model(mc::Use::always);
  const mc::Placement small = filled(3);
  expect_closed_forms(decide(shape(4), kTable, {nullptr, &m}, Policy{}, &small));
  // A larger placement: its first comm_size ranks (0 0 1 1) are used.
  const mc::Placement large = filled(8);
  const Decision d = decide(shape(4), kTable, {nullptr, &m}, Policy{}, &large);
  EXPECT_TRUE(near(d.table[0].predicted_s, kFanFilled));
  EXPECT_TRUE(near(d.table[1].predicted_s, kLineFilled));
}

TEST(DecidePlacement, TheModelOfTheRungDecides) {
  // The calibrated model (no section) fills the table; the fallback's section is not used.
  const auto calibrated = model(std::nullopt);
  const auto fallback = model(mc::Use::always);
  const mc::Placement p = filled();
  const Decision d = decide(shape(), kTable, {&calibrated, &fallback}, Policy{}, &p);
  expect_closed_forms(d);
  EXPECT_EQ(d.rung, Rung::calibrated_model);
}

TEST(DecidePlacement, LongOrRejectedSchedulesKeepTheClosedForm) {
  const auto m = model(mc::Use::always);
  const mc::Placement p = filled();
  const Decision d = decide(shape(), kGuarded, {nullptr, &m}, Policy{}, &p);
  ASSERT_EQ(d.table.size(), 2u);
  EXPECT_FALSE(d.table[0].simulated);
  EXPECT_EQ(d.table[0].predicted_s, 1.0);
  EXPECT_FALSE(d.table[1].simulated);
  EXPECT_EQ(d.table[1].predicted_s, 2.0);
}

TEST(DecidePlacement, DecisionsAreDeterministic) {
  const auto m = model(mc::Use::always);
  const mc::Placement a = mc::make_placement(mc::PlacementKind::random, 16, 4, 7);
  const mc::Placement b = mc::make_placement(mc::PlacementKind::random, 16, 4, 7);
  const Decision first = decide(shape(16), kTable, {nullptr, &m}, Policy{}, &a);
  const Decision second = decide(shape(16), kTable, {nullptr, &m}, Policy{}, &b);
  ASSERT_EQ(first.table.size(), second.table.size());
  for (std::size_t i = 0; i < first.table.size(); ++i) {
    EXPECT_EQ(first.table[i].predicted_s, second.table[i].predicted_s);
    EXPECT_EQ(first.table[i].simulated, second.table[i].simulated);
  }
  EXPECT_EQ(first.winner, second.winner);
}

TEST(DecidePlacement, TheRegistrySimulatesEveryScheduledBroadcast) {
  models::ModelLoad load =
      models::parse_model(conf::embedded_default_model(), conf::kEmbeddedModelName);
  ASSERT_TRUE(load.model.has_value());
  models::ModelFile m = *load.model;
  mc::Params c;
  c.rule = mc::RuleKind::fair;
  c.use = mc::Use::always;
  c.alpha_s_per_byte = 1e-9;
  m.contention = c;
  const CallShape s{Collective::bcast, 64, 1 << 20, 0};
  const mc::Placement p = mc::make_placement(mc::PlacementKind::filled, 64, 8);

  const Decision simulated = decide(s, {nullptr, &m}, Policy{}, &p);
  m.contention->use = mc::Use::never;
  const Decision closed = decide(s, {nullptr, &m}, Policy{}, &p);
  ASSERT_EQ(simulated.table.size(), closed.table.size());
  int changed = 0;
  for (std::size_t i = 0; i < simulated.table.size(); ++i) {
    const CostEntry& e = simulated.table[i];
    const AlgorithmView* view = find_algorithm(Collective::bcast, e.name);
    ASSERT_NE(view, nullptr);
    EXPECT_FALSE(closed.table[i].simulated);
    EXPECT_EQ(closed.table[i].params, e.params) << e.name << ": the closed form's parameters";
    if (e.not_applicable) continue;
    // Only a schedule past the cap (tiny segments) keeps the closed form.
    const bool simulable = view->schedule != nullptr &&
                           view->schedule(s, e.params).messages.size() <= kMaxSimulatedMessages;
    EXPECT_EQ(e.simulated, simulable) << e.name;
    EXPECT_GT(e.predicted_s, 0.0) << e.name;
    changed += e.predicted_s != closed.table[i].predicted_s;
  }
  EXPECT_GT(changed, 0);
}

}  // namespace
}  // namespace collsel

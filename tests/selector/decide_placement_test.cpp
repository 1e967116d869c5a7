// decide() with a placement of ranks on nodes: when the model's [contention] section says so, the
// algorithms with a schedule are predicted by the contention simulator instead of their closed
// forms, and segmented ones search their segment size again (selector/decide.hpp). Hand-made
// algorithms whose simulated times follow by hand from models/contention/schedule.cpp's timing
// rule (alone, a message costs g(m) + L: a fixed start delay g(m) - alpha m, alpha m rho on the
// network, then L), then the real registry. No MPI.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conf/embedded.hpp"
#include "models/contention/schedule.hpp"
#include "selector/decide.hpp"

namespace collsel {
namespace {

namespace mc = models::contention;

constexpr std::uint64_t kBytes = 1000;
constexpr double kAlpha = 1e-9;   // 1 us for 1000 bytes between nodes
constexpr double kIntra = 1e-10;  // 0.1 us for 1000 bytes within a node
// The model's pLogP: g(m) = kFixed + m ns (the same slope as kAlpha, so every inter-node message
// has the fixed part kFixed), L = kLatency.
constexpr double kFixed = 0.5e-6;
constexpr double kLatency = 0.5e-6;
constexpr double kGap = kFixed + kBytes * kAlpha;  // g(1000) = 1.5 us

// Closed forms: line 1 s, fan 2 s, unscheduled 3 s, far slower than any simulated time, so a
// simulated entry is recognisable by its value alone. The closed forms prefer the line; the
// simulation, which sees the fan's transfers overlap, prefers the fan.
Prediction closed_1(const models::ModelFile&, const CallShape&, const Policy&) { return {1.0, {}}; }
Prediction closed_2(const models::ModelFile&, const CallShape&, const Policy&) { return {2.0, {}}; }
Prediction closed_3(const models::ModelFile&, const CallShape&, const Policy&) { return {3.0, {}}; }
std::optional<std::string> always(const CallShape&) { return std::nullopt; }

mc::Message send(int src, int dst, std::vector<int> after = {}) {
  return {src, dst, kBytes, std::move(after)};
}

// Rank 0 posts a send to every other rank (no dependencies: posted one after the other).
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

// Past the cap, and past an extrapolation's prefix too, whatever the message.
mc::Schedule too_long(const CallShape& s, const AlgoParams&) {
  mc::Schedule out{s.comm_size, {}};
  out.messages.assign(kMaxPrefixMessages + 1, send(0, 1));
  return out;
}

// Two messages waiting for each other: the solver rejects the cycle.
mc::Schedule cyclic(const CallShape& s, const AlgoParams&) {
  return {s.comm_size, {send(0, 1, {1}), send(1, 0, {0})}};
}

const AlgorithmView kTable[] = {
    {"bcast.fan", "root sends to all at once", closed_2, always, false, fan},
    {"bcast.line", "chain", closed_1, always, false, line},
    {"bcast.unscheduled", "no schedule: always the closed form", closed_3, always, false, nullptr},
};

const AlgorithmView kGuarded[] = {
    {"bcast.too_long", "more messages than the cap", closed_1, always, false, too_long},
    {"bcast.cyclic", "a schedule the solver rejects", closed_2, always, false, cyclic},
};

// pLogP g(m) = fixed + m alpha (exact: sampled from the line), o_s(m) = g(m): the sender's
// software paces every message, so the simulator's fixed part is g(m) - alpha m and, o_s having
// grown past a post's CPU cost, a rank's posts follow one another by it (schedule.cpp,
// network_cost); L = latency; the fair rule.
models::ModelFile model(std::optional<mc::Use> use, double fixed = kFixed,
                        double latency = kLatency) {
  models::ModelFile f;
  f.plogp.latency_s = latency;
  const double big = fixed + (1 << 20) * kAlpha;
  f.plogp.table = {{0, fixed, fixed, 0.0}, {1 << 20, big, big, 0.0}};
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
  EXPECT_EQ(d.table[0].predicted_s, 2.0);
  EXPECT_EQ(d.table[1].predicted_s, 1.0);
  EXPECT_EQ(d.table[2].predicted_s, 3.0);
  for (const CostEntry& e : d.table) EXPECT_FALSE(e.simulated) << e.name;
  EXPECT_EQ(d.algorithm(), "bcast.line");
}

// Ranks 0 1 | 2 3 on two nodes (filled), fair rule, g = 1.5 us, L = 0.5 us:
//   fan:  rank 0 posts its sends a fixed part (0.5 us) apart: the copy to rank 1 at 0.5 us, 0->2
//         at 1 us, 0->3 at 1.5 us. The two leave node 0 for node 1, sharing its link (rho 2
//         while both run): the link carries 2 x 1 us of transfers from 1 us on, so the last ends
//         at 3 us and is seen at 3.5 us.
//   line: three hops in turn: copy 1.1 us, across g + L = 2 us, copy 1.1 us: 4.2 us.
constexpr double kFanFilled = 2 * kFixed + 2 * kBytes * kAlpha + kLatency;
constexpr double kCopyHop = kFixed + kBytes * kIntra + kLatency;
constexpr double kLineFilled = 2 * kCopyHop + kGap + kLatency;

TEST(DecidePlacement, AlwaysSimulatesAndTheWinnerChanges) {
  const auto m = model(mc::Use::always);
  const mc::Placement p = filled();
  // The closed forms alone choose the line.
  EXPECT_EQ(decide(shape(), kTable, {nullptr, &m}, Policy{}).algorithm(), "bcast.line");
  const Decision d = decide(shape(), kTable, {nullptr, &m}, Policy{}, &p);
  ASSERT_EQ(d.table.size(), 3u);
  EXPECT_TRUE(d.table[0].simulated);
  EXPECT_TRUE(near(d.table[0].predicted_s, kFanFilled));
  EXPECT_TRUE(d.table[1].simulated);
  EXPECT_TRUE(near(d.table[1].predicted_s, kLineFilled));
  // Without a schedule the closed form stands.
  EXPECT_FALSE(d.table[2].simulated);
  EXPECT_EQ(d.table[2].predicted_s, 3.0);
  EXPECT_EQ(d.algorithm(), "bcast.fan");
  EXPECT_EQ(d.rung, Rung::default_model);
}

TEST(DecidePlacement, TheModelsIntraNodeTableTimesTheHopsWithinANode) {
  // [intra_node]: g(m) = 0.2 us + m x 0.1 ns, L = 0.1 us. The line's two copies (0 -> 1, 2 -> 3)
  // now cost F_intra(1000) = 0.3 - 0.1 = 0.2 us, the 0.1 us copy and L_intra each; its hop
  // across the nodes g + L as before: 2 x 0.4 + 2 = 2.8 us (4.2 us without the table).
  auto m = model(mc::Use::always);
  m.intra_node = models::plogp::Params{};
  m.intra_node->latency_s = 0.1e-6;
  m.intra_node->table = {{0, 0.2e-6, 0.1e-6, 0.1e-6},
                         {1 << 20, 0.2e-6 + (1 << 20) * 1e-10, 0.1e-6, 0.1e-6}};
  const mc::Placement p = filled();
  const Decision d = decide(shape(), kTable, {nullptr, &m}, Policy{}, &p);
  EXPECT_TRUE(near(d.table[1].predicted_s, 2 * (0.2e-6 + kBytes * kIntra + 0.1e-6) + kGap +
                                               kLatency));
  EXPECT_LT(d.table[1].predicted_s, kLineFilled);
  // The fan's copy is posted at 0.2 us, its two sends across at 0.7 and 1.2 us (they share the
  // link from 1.2 us): seen at 3.2 us. The line wins, where the fan won without the table.
  EXPECT_TRUE(near(d.table[0].predicted_s, 3.2e-6));
  EXPECT_EQ(d.algorithm(), "bcast.line");
}

TEST(DecidePlacement, AlwaysSimulatesOnePerNodeToo) {
  // Four nodes: the fan's three sends are posted 0.5 us apart and share node 0's link, busy
  // from the first post on with 3 x 1 us of transfers: 0.5 + 3 + 0.5 = 4 us; the line crosses
  // three links in turn, each g + L: 6 us.
  const auto m = model(mc::Use::always);
  const mc::Placement p = one_per_node();
  const Decision d = decide(shape(), kTable, {nullptr, &m}, Policy{}, &p);
  EXPECT_TRUE(d.table[0].simulated);
  EXPECT_TRUE(near(d.table[0].predicted_s, kFixed + 3 * kBytes * kAlpha + kLatency));
  EXPECT_TRUE(near(d.table[1].predicted_s, 3 * (kGap + kLatency)));
  EXPECT_EQ(d.algorithm(), "bcast.fan");
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
  EXPECT_TRUE(near(d.table[0].predicted_s, kFanFilled));
  EXPECT_TRUE(near(d.table[1].predicted_s, kLineFilled));
  EXPECT_EQ(d.algorithm(), "bcast.fan");
}

// The All-to-All is the exception at one rank per node: simulated where a block's link time
// alpha m (1 us at 1000 bytes) hides the receive overhead o_r(m), which the simulation does not
// charge, and where the direct exchange's P (P - 1) messages fit the simulation's cap.
TEST(DecidePlacement, AutomaticSimulatesTheAllToAllOnePerNodeWhereItsAssumptionHolds) {
  const CallShape alltoall{Collective::alltoall, 4, kBytes, 0};
  const mc::Placement spread = one_per_node();
  auto m = model(mc::Use::automatic);
  for (auto& point : m.plogp.table) point.recv_overhead_s = 0.9e-6;
  const Decision d = decide(alltoall, kTable, {nullptr, &m}, Policy{}, &spread);
  EXPECT_TRUE(d.table[0].simulated);
  EXPECT_TRUE(near(d.table[0].predicted_s, kFixed + 3 * kBytes * kAlpha + kLatency));
  EXPECT_EQ(d.algorithm(), "bcast.fan");
  // Bcast and Scatter keep their closed forms at one rank per node.
  expect_closed_forms(decide(shape(), kTable, {nullptr, &m}, Policy{}, &spread));
  // A receive overhead above the link time: the closed forms.
  for (auto& point : m.plogp.table) point.recv_overhead_s = 1.1e-6;
  expect_closed_forms(decide(alltoall, kTable, {nullptr, &m}, Policy{}, &spread));
  // 65 ranks: 65 x 64 = 4160 messages, past kMaxSimulatedMessages; 64 ranks: 4032, within it.
  for (auto& point : m.plogp.table) point.recv_overhead_s = 0.0;
  const mc::Placement wide = one_per_node(65);
  expect_closed_forms(decide({Collective::alltoall, 65, kBytes, 0}, kTable, {nullptr, &m},
                             Policy{}, &wide));
  EXPECT_TRUE(decide({Collective::alltoall, 64, kBytes, 0}, kTable, {nullptr, &m}, Policy{},
                     &wide)
                  .table[0]
                  .simulated);
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

// Rank 0 sends kMaxSimulatedMessages + 1 messages of 1000 bytes to the last rank (on another node
// in every placement below) at once: too long to simulate, so its closed form (1 ns here) stands,
// but on two ranks per node it is no faster than node 0's link carries those bytes, 4097 x 1 us,
// plus one latency (the messages do not wait for one another): the node link floor
// (models::contention::LinkLoad). Not at one rank per node, where the closed forms' link is the
// rank's own, nor for an All-to-All whose exchanges' P (P - 1) messages pass
// kMaxLinkLoadMessages.
Prediction closed_tiny(const models::ModelFile&, const CallShape&, const Policy&) {
  return {1e-9, {}};
}
mc::Schedule flood(const CallShape& s, const AlgoParams&) {
  mc::Schedule out{s.comm_size, {}};
  out.messages.assign(kMaxSimulatedMessages + 1, send(0, s.comm_size - 1));
  return out;
}
const AlgorithmView kFlood[] = {
    {"bcast.flood", "too long to simulate, not to count", closed_tiny, always, false, flood},
};

TEST(DecidePlacement, AClosedFormIsNoFasterThanTheBusiestNodesLink) {
  const auto m = model(mc::Use::always);
  const mc::Placement two_per_node = filled();
  const Decision d = decide(shape(), kFlood, {nullptr, &m}, Policy{}, &two_per_node);
  ASSERT_EQ(d.table.size(), 1u);
  EXPECT_FALSE(d.table[0].simulated);
  EXPECT_TRUE(d.table[0].link_shared);
  EXPECT_TRUE(near(d.table[0].predicted_s,
                   (kMaxSimulatedMessages + 1) * kBytes * kAlpha + kLatency));
  const mc::Placement spread = one_per_node();
  const Decision alone = decide(shape(), kFlood, {nullptr, &m}, Policy{}, &spread);
  EXPECT_FALSE(alone.table[0].link_shared);
  EXPECT_EQ(alone.table[0].predicted_s, 1e-9);
  // An All-to-All of 257 ranks: 257 x 256 = 65792 messages per exchange, past the count's cap.
  const mc::Placement wide = mc::make_placement(mc::PlacementKind::filled, 257, 8);
  const Decision a2a =
      decide({Collective::alltoall, 257, kBytes, 0}, kFlood, {nullptr, &m}, Policy{}, &wide);
  EXPECT_FALSE(a2a.table[0].link_shared);
  EXPECT_EQ(a2a.table[0].predicted_s, 1e-9);
  const mc::Placement fits = mc::make_placement(mc::PlacementKind::filled, 256, 8);
  EXPECT_TRUE(decide({Collective::alltoall, 256, kBytes, 0}, kFlood, {nullptr, &m}, Policy{},
                     &fits)
                  .table[0]
                  .link_shared);
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

// --- segment sizes under simulation ---

// A segmented pipeline through all ranks: segment i goes 0 -> 1 -> ... -> P-1, each hop after the
// same hop of segment i-1 (the sender's own send: its transfer end) and after the previous hop
// of segment i (received: its end plus L). On one node per rank nothing contends (fair rule:
// every link carries one message at a time). Hop j of segment i ends at (i + 1) g(s) + j (g(s) +
// L), so the last segment arrives at (segments + P - 2) g(s) + (P - 1) L.
mc::Schedule pipeline(const CallShape& s, const AlgoParams& params) {
  const std::uint64_t seg =
      params.segment_bytes == 0 || params.segment_bytes > s.bytes ? s.bytes : params.segment_bytes;
  const std::uint64_t segments = (s.bytes + seg - 1) / seg;
  const int hops = s.comm_size - 1;
  mc::Schedule out{s.comm_size, {}};
  for (std::uint64_t i = 0; i < segments; ++i) {
    const std::uint64_t bytes = std::min(seg, s.bytes - i * seg);
    for (int j = 0; j < hops; ++j) {
      std::vector<int> after;
      const int index = static_cast<int>(out.messages.size());
      if (i > 0) after.push_back(index - hops);  // hop j of segment i-1
      if (j > 0) after.push_back(index - 1);     // hop j-1 of segment i
      out.messages.push_back({j, j + 1, bytes, std::move(after)});
    }
  }
  return out;
}

// One whole message whatever the segment: every candidate takes the same time.
mc::Schedule unsegmented(const CallShape& s, const AlgoParams&) {
  return {s.comm_size, {{0, 1, s.bytes, {}}}};
}

// The closed form picks 8-byte segments (as a closed form with a tiny per-segment cost would),
// or the user's.
Prediction closed_tiny_segments(const models::ModelFile&, const CallShape&, const Policy& policy) {
  return {1.0, {policy.segment_bytes.value_or(8)}};
}

const AlgorithmView kSegmented[] = {
    {"bcast.pipeline", "segmented pipeline", closed_tiny_segments, always, true, pipeline},
    {"bcast.indifferent", "segmented, time independent of the segment", closed_tiny_segments,
     always, true, unsegmented},
    {"bcast.segmented_too_long", "every segment size past the cap", closed_tiny_segments, always,
     true, too_long},
};

// 6 ranks, 1 MiB, g(s) = 0.512 us + s ns, L = 0.512 us: the pipeline takes
// T(s) = (2^20 / s + 4) g(s) + 5 L, least at s = sqrt(2^20 x 0.512 us / (4 x 1 ns)) = 11.3 KiB.
// Candidates: 1 MiB, 512 KiB, ..., 2 KiB within the cap; 1 KiB (5 x 1024 messages) and the closed
// form's 8 B past it, extrapolated from their first segments. 8 KiB and 16 KiB tie exactly:
// (128 + 4) x 8.704 us = (64 + 4) x 16.896 us = 1,148.928 us.
constexpr std::uint64_t kMiB = 1 << 20;
constexpr int kPipelineRanks = 6;
constexpr double kSegmentFixed = 0.512e-6;
double pipeline_time(std::uint64_t s) {
  const double g = kSegmentFixed + static_cast<double>(s) * kAlpha;
  return static_cast<double>(kMiB / s + kPipelineRanks - 2) * g +
         (kPipelineRanks - 1) * kSegmentFixed;
}

CallShape big_shape() { return {Collective::bcast, kPipelineRanks, kMiB, 0}; }

TEST(DecidePlacement, TheSegmentCandidatesAreFewAndFitTheCap) {
  using V = std::vector<std::uint64_t>;
  EXPECT_EQ(simulated_segment_candidates(kMiB, 1536, 8),
            (V{kMiB, 512 << 10, 256 << 10, 128 << 10, 64 << 10, 32 << 10, 16 << 10, 8 << 10,
               4 << 10, 2 << 10, 1536, 1024}));
  // 1 GiB: only sizes of at most 4096 segments, from 256 KiB; the closed form's is kept anyway.
  EXPECT_EQ(simulated_segment_candidates(1ULL << 30, 8, 8),
            (V{1ULL << 30, 512 << 20, 256 << 20, 128 << 20, 64 << 20, 32 << 20, 16 << 20, 8 << 20,
               4 << 20, 2 << 20, 1 << 20, 512 << 10, 256 << 10, 8}));
  // The message itself, even when it is no power of 2; no repeats.
  EXPECT_EQ(simulated_segment_candidates(3000, 1024, 8), (V{3000, 2048, 1024}));
  EXPECT_EQ(simulated_segment_candidates(500, 500, 8), (V{500}));
  EXPECT_EQ(simulated_segment_candidates(0, 0, 8), (V{0}));
  // Multiples of the unit (24-byte elements): 1032 = 43 x 24, 2064, 4104, ..., 65544.
  EXPECT_EQ(simulated_segment_candidates(96000, 2400, 24),
            (V{96000, 65544, 32784, 16392, 8208, 4104, 2400, 2064, 1032}));
  EXPECT_EQ(simulated_segment_candidates(4096, 4096, 0), (V{4096, 2048, 1024}));
  for (int shift = 0; shift < 62; ++shift) {
    for (std::uint64_t m : {1ULL << shift, 3ULL << shift, (1ULL << shift) + 1}) {
      const V c = simulated_segment_candidates(m, 8, 8);
      EXPECT_LE(c.size(), 15u) << m;
      EXPECT_TRUE(std::is_sorted(c.rbegin(), c.rend())) << m;
      for (std::uint64_t seg : c) {
        if (seg != 8) {
          EXPECT_LE((m + seg - 1) / seg, kMaxSimulatedMessages) << m << " " << seg;
        }
      }
    }
  }
}

TEST(DecidePlacement, TheSegmentIsSearchedWhenTheClosedFormsSegmentIsPastTheCap) {
  const auto m = model(mc::Use::always, kSegmentFixed, kSegmentFixed);
  const mc::Placement p = one_per_node(kPipelineRanks);
  // The closed form's 8-byte segments: 131072 segments x 5 hops.
  static_assert(kMiB / 8 * (kPipelineRanks - 1) > kMaxSimulatedMessages);
  ASSERT_EQ(closed_tiny_segments(m, big_shape(), Policy{}).params.segment_bytes, 8u);
  const Decision d = decide(big_shape(), kSegmented, {nullptr, &m}, Policy{}, &p);
  ASSERT_EQ(d.table.size(), 3u);
  const CostEntry& e = d.table[0];
  EXPECT_TRUE(e.simulated);
  EXPECT_EQ(e.params.segment_bytes, 16u << 10);  // the tie goes to the larger
  EXPECT_TRUE(near(e.predicted_s, pipeline_time(16 << 10)));
  // Its neighbours are slower (1,149 us at 8 and 16 KiB; 1,198 us at 4 KiB, 1,324 us at 64 KiB),
  // the extremes much slower, extrapolated or not.
  for (std::uint64_t s : {1 << 10, 4 << 10, 64 << 10, 256 << 10, 1 << 20}) {
    EXPECT_GT(pipeline_time(s), e.predicted_s * 1.04) << s;
  }

  // All candidates equal: the largest segment, the message itself.
  EXPECT_TRUE(d.table[1].simulated);
  EXPECT_EQ(d.table[1].params.segment_bytes, kMiB);
  EXPECT_TRUE(near(d.table[1].predicted_s, kSegmentFixed + kMiB * kAlpha + kSegmentFixed));

  // No candidate fits: the closed form and its segment stand.
  EXPECT_FALSE(d.table[2].simulated);
  EXPECT_EQ(d.table[2].predicted_s, 1.0);
  EXPECT_EQ(d.table[2].params.segment_bytes, 8u);
}

TEST(DecidePlacement, AUserFixedSegmentIsSimulatedAloneOrExtrapolated) {
  const auto m = model(mc::Use::always, kSegmentFixed, kSegmentFixed);
  const mc::Placement p = one_per_node(kPipelineRanks);
  Policy policy;
  policy.segment_bytes = 4096;  // not the best under simulation (16 KiB), kept
  const Decision d = decide(big_shape(), kSegmented, {nullptr, &m}, policy, &p);
  EXPECT_TRUE(d.table[0].simulated);
  EXPECT_EQ(d.table[0].params.segment_bytes, 4096u);
  EXPECT_TRUE(near(d.table[0].predicted_s, pipeline_time(4096)));  // 260 x 4.608 + 2.56 us
  EXPECT_EQ(d.table[1].params.segment_bytes, 4096u);

  EXPECT_EQ(d.table[0].extrapolated_from_segments, 0u);

  // 1 KiB: 5 x 1024 messages, past the cap: extrapolated from the first 16 segments (twice
  // kMinExtrapolationSegments), exactly, since each later segment adds one g(s) to the pipeline.
  policy.segment_bytes = 1024;
  const Decision past = decide(big_shape(), kSegmented, {nullptr, &m}, policy, &p);
  EXPECT_TRUE(past.table[0].simulated);
  EXPECT_EQ(past.table[0].extrapolated_from_segments, 2 * kMinExtrapolationSegments);
  EXPECT_TRUE(near(past.table[0].predicted_s, pipeline_time(1024)));
  EXPECT_EQ(past.table[0].params.segment_bytes, 1024u);
  // 8 B of 1 MiB: its 655360-message schedule is never built, only its first 16 segments'.
  policy.segment_bytes = 8;
  const Decision tiny = decide(big_shape(), kSegmented, {nullptr, &m}, policy, &p);
  EXPECT_TRUE(tiny.table[0].simulated);
  EXPECT_TRUE(near(tiny.table[0].predicted_s, pipeline_time(8)));
  EXPECT_EQ(tiny.table[0].params.segment_bytes, 8u);
  // A schedule past the cap whatever its length: the closed form stands.
  EXPECT_FALSE(tiny.table[2].simulated);
  EXPECT_EQ(tiny.table[2].predicted_s, 1.0);
}

// The prefix holds what a rank keeps in flight: with 64 segments ahead, 2 x 65 segments are
// simulated. And where the longer prefix is past kMaxPrefixMessages (600 ranks: 16 x 599
// messages), the closed form stands.
TEST(DecidePlacement, TheExtrapolatedPrefixHoldsTheSegmentsInFlight) {
  const auto m = model(mc::Use::always, kSegmentFixed, kSegmentFixed);
  AlgorithmView windowed = kSegmented[0];
  windowed.segments_in_flight = 64;
  const AlgorithmView table[] = {windowed};
  Policy policy;
  policy.segment_bytes = 1024;
  const mc::Placement p = one_per_node(kPipelineRanks);
  const Decision d = decide(big_shape(), table, {nullptr, &m}, policy, &p);
  EXPECT_TRUE(d.table[0].simulated);
  EXPECT_EQ(d.table[0].extrapolated_from_segments, 130u);
  EXPECT_TRUE(near(d.table[0].predicted_s, pipeline_time(1024)));

  const int many = 600;
  static_assert(2 * kMinExtrapolationSegments * (many - 1) > kMaxPrefixMessages);
  const mc::Placement wide = one_per_node(many);
  const Decision none =
      decide({Collective::bcast, many, kMiB, 0}, kSegmented, {nullptr, &m}, policy, &wide);
  EXPECT_FALSE(none.table[0].simulated);
  EXPECT_EQ(none.table[0].predicted_s, 1.0);
}

// The embedded default model with a [contention] section that always simulates: the registry's
// own algorithms on a model and network like a measured one. None if the embedded model does not
// parse.
std::optional<models::ModelFile> embedded_model_simulating(mc::RuleKind rule, double alpha) {
  models::ModelLoad load =
      models::parse_model(conf::embedded_default_model(), conf::kEmbeddedModelName);
  if (!load.model) return std::nullopt;
  mc::Params c;
  c.rule = rule;
  c.use = mc::Use::always;
  c.alpha_s_per_byte = alpha;
  load.model->contention = c;
  return load.model;
}

// The extrapolations' cost is bounded per algorithm: at 300 ranks one extrapolation of the
// pipeline simulates 8 + 16 segments of 299 messages (7176), and the closed form's own 8 B
// takes it, so the 64, 32 and 16 KiB candidates past the cap, each far faster (20.7, 11.2 and
// 6.1 ms), are not extrapolated: 128 KiB (40.3 ms), the smallest within the cap, stands.
TEST(DecidePlacement, TheExtrapolationsStayWithinTheirBudget) {
  const auto m = model(mc::Use::always, kSegmentFixed, kSegmentFixed);
  const int ranks = 300;
  const std::size_t one = 3 * kMinExtrapolationSegments * (ranks - 1);
  static_assert(3 * kMinExtrapolationSegments * (ranks - 1) <= kExtrapolationBudgetMessages &&
                6 * kMinExtrapolationSegments * (ranks - 1) > kExtrapolationBudgetMessages);
  ASSERT_EQ(one, 7176u);
  const mc::Placement p = one_per_node(ranks);
  const CallShape s{Collective::bcast, ranks, kMiB, 0};
  const Decision d = decide(s, kSegmented, {nullptr, &m}, Policy{}, &p);
  const CostEntry& e = d.table[0];
  EXPECT_TRUE(e.simulated);
  EXPECT_EQ(e.extrapolated_from_segments, 0u);
  EXPECT_EQ(e.params.segment_bytes, 128u << 10);
  const double g = kSegmentFixed + (128 << 10) * kAlpha;
  EXPECT_TRUE(near(e.predicted_s, (8 + ranks - 2) * g + (ranks - 1) * kSegmentFixed));
}

// The registry's segmented chains and binomial tree at 16 ranks, 8 per node, 4 MiB in 8 KiB
// segments (7680 messages for a chain, past the cap): the extrapolation against the simulation
// of the whole schedule, done here without the cap.
TEST(DecidePlacement, TheExtrapolationFollowsTheWholeScheduleSimulation) {
  const std::optional<models::ModelFile> loaded =
      embedded_model_simulating(mc::RuleKind::gige, 8e-9);
  ASSERT_TRUE(loaded.has_value());
  const models::ModelFile& m = *loaded;
  const mc::Placement p = mc::make_placement(mc::PlacementKind::filled, 16, 8);
  const CallShape s{Collective::bcast, 16, 4 * kMiB, 0};
  Policy policy;
  policy.segment_bytes = 8192;
  const Decision d = decide(s, {nullptr, &m}, policy, &p);
  int checked = 0;
  for (const std::string_view name :
       {"bcast.chain_segmented", "bcast.chain_preposted", "bcast.binomial_segmented"}) {
    const AlgorithmView* view = find_algorithm(Collective::bcast, name);
    ASSERT_NE(view, nullptr);
    const auto e = std::find_if(d.table.begin(), d.table.end(),
                                [&](const CostEntry& c) { return c.name == name; });
    ASSERT_NE(e, d.table.end());
    const mc::Schedule whole = view->schedule(s, e->params);
    ASSERT_GT(whole.messages.size(), kMaxSimulatedMessages) << name;
    EXPECT_TRUE(e->simulated) << name;
    EXPECT_GT(e->extrapolated_from_segments, 0u) << name;
    const models::plogp::Params* intra = m.intra_node ? &*m.intra_node : nullptr;
    const double t = mc::simulate(whole, p, *m.contention, m.plogp, intra).completion_s;
    EXPECT_NEAR(e->predicted_s / t, 1.0, 0.05) << name << ": " << e->predicted_s << " s, whole "
                                               << t << " s";
    ++checked;
  }
  EXPECT_EQ(checked, 3);
}

// The registry's segmented broadcasts on a model and network like a measured one: the segment
// chosen under simulation is the fastest of the candidates, each simulated here directly.
TEST(DecidePlacement, TheRegistrysSegmentedBroadcastsKeepTheFastestSimulatedCandidate) {
  const std::optional<models::ModelFile> loaded =
      embedded_model_simulating(mc::RuleKind::gige, 8e-9);
  ASSERT_TRUE(loaded.has_value());
  const models::ModelFile& m = *loaded;
  const mc::Params& c = *m.contention;
  const mc::Placement p = mc::make_placement(mc::PlacementKind::filled, 8, 2);
  int moved = 0;
  for (const std::uint64_t bytes : {kMiB, std::uint64_t{100000}}) {
    const CallShape s{Collective::bcast, 8, bytes, 0};
    const Decision d = decide(s, {nullptr, &m}, Policy{}, &p);
    int segmented = 0;
    for (const CostEntry& e : d.table) {
      const AlgorithmView* view = find_algorithm(Collective::bcast, e.name);
      ASSERT_NE(view, nullptr);
      if (!view->segmented || e.not_applicable) continue;
      ++segmented;
      const Prediction closed = view->model(m, s, Policy{});
      double best_s = 0.0;
      std::uint64_t best_seg = 0;
      const std::vector<std::uint64_t> candidates = simulated_segment_candidates(
          bytes, closed.params.segment_bytes, Policy{}.segment_unit_bytes);
      for (const std::uint64_t seg : candidates) {
        AlgoParams params = closed.params;
        params.segment_bytes = seg;
        const mc::Schedule schedule = view->schedule(s, params);
        if (schedule.messages.size() > kMaxSimulatedMessages) continue;
        const double t = mc::simulate(schedule, p, c, m.plogp).completion_s;
        // Largest first: ties (kSegmentTieTolerance) keep the larger.
        if (best_seg == 0 || t < best_s * (1.0 - kSegmentTieTolerance)) {
          best_s = t;
          best_seg = seg;
        }
      }
      ASSERT_NE(best_seg, 0u) << e.name;
      EXPECT_TRUE(e.simulated) << e.name;
      if (e.extrapolated_from_segments == 0) {
        EXPECT_EQ(e.params.segment_bytes, best_seg) << e.name << " at " << bytes;
        EXPECT_EQ(e.predicted_s, best_s) << e.name << " at " << bytes;
      } else {  // a candidate past the cap, extrapolated, beat every one within it
        EXPECT_GT(view->schedule(s, e.params).messages.size(), kMaxSimulatedMessages) << e.name;
        EXPECT_LT(e.predicted_s, best_s) << e.name << " at " << bytes;
      }
      moved += e.params.segment_bytes != closed.params.segment_bytes;
    }
    EXPECT_EQ(segmented, 5);  // flat, chain and binomial _segmented, split_binary, chain_preposted
  }
  // The search matters: the closed forms' segments are not the simulation's best here.
  EXPECT_GT(moved, 0);
}

// Both shares are dropped for the search's start, and only they: the rest of the model is the
// model's. Without either share nothing is copied.
TEST(DecidePlacement, TheSearchStartsFromTheModelWithoutEitherShare) {
  const std::optional<models::ModelFile> loaded =
      embedded_model_simulating(mc::RuleKind::gige, 8e-9);
  ASSERT_TRUE(loaded.has_value());
  EXPECT_FALSE(without_link_shares(*loaded).has_value());
  for (const bool fanout : {false, true}) {
    models::ModelFile with = *loaded;
    with.plogp.fanout_shares = fanout;
    with.plogp.pair_shares = true;
    for (auto& point : with.plogp.table) point.fanout_share = point.pair_share = 0.5;
    const std::optional<models::ModelFile> start = without_link_shares(with);
    ASSERT_TRUE(start.has_value());
    EXPECT_FALSE(start->plogp.fanout_shares);
    EXPECT_FALSE(start->plogp.pair_shares);
    EXPECT_EQ(start->plogp.fanout_share(4096), 0.0);
    EXPECT_EQ(start->plogp.pair_share(4096), 0.0);
    EXPECT_EQ(start->plogp.gap_s(4096), with.plogp.gap_s(4096));
    EXPECT_EQ(start->name, with.name);
  }
}

// The simulation does not share a sender's link among its eager sends (the fan-out share sigma of
// docs/MODELS.md, "Shared fan-out"; it queues them), so a simulated segment search starts from
// the closed form without sigma: with sigma measured, the simulated segmented entries are
// those of the same model without the column, although sigma moves the closed form's segment.
TEST(DecidePlacement, TheSimulatedSegmentSearchStartsFromTheClosedFormWithoutTheFanoutShare) {
  const std::optional<models::ModelFile> loaded =
      embedded_model_simulating(mc::RuleKind::gige, 8e-9);
  ASSERT_TRUE(loaded.has_value());
  const models::ModelFile& without = *loaded;
  models::ModelFile with = without;
  with.plogp.fanout_shares = true;
  // Large messages shared, small ones not, so that the closed form with sigma prefers segments
  // below 64 KiB (a share equal at every size would only scale the cost of every segment size
  // alike, and the closed form's segment would not move).
  for (auto& point : with.plogp.table) point.fanout_share = point.bytes >= 65536 ? 1.0 : 0.0;
  const AlgorithmView* binomial = find_algorithm(Collective::bcast, "bcast.binomial_segmented");
  ASSERT_NE(binomial, nullptr);
  int moved = 0;
  for (const int ranks : {16, 64}) {
    const mc::Placement p = mc::make_placement(mc::PlacementKind::filled, ranks, 2);
    for (std::uint64_t bytes = 64 << 10; bytes <= 4 * kMiB; bytes *= 4) {
      const CallShape s{Collective::bcast, ranks, bytes, 0};
      // Where sigma moves the closed form's segment, a search started from it would try other
      // candidates.
      moved += binomial->model(with, s, Policy{}).params.segment_bytes !=
               binomial->model(without, s, Policy{}).params.segment_bytes;
      const Decision a = decide(s, {nullptr, &with}, Policy{}, &p);
      const Decision b = decide(s, {nullptr, &without}, Policy{}, &p);
      ASSERT_EQ(a.table.size(), b.table.size());
      for (std::size_t i = 0; i < a.table.size(); ++i) {
        const AlgorithmView* view = find_algorithm(Collective::bcast, a.table[i].name);
        ASSERT_NE(view, nullptr);
        if (!view->segmented || !a.table[i].simulated) continue;
        EXPECT_EQ(a.table[i].params.segment_bytes, b.table[i].params.segment_bytes)
            << view->name << " P = " << ranks << ", " << bytes << " B";
        EXPECT_EQ(a.table[i].predicted_s, b.table[i].predicted_s) << view->name;
      }
    }
  }
  EXPECT_GT(moved, 0);  // the premise: otherwise this test could not fail
}

TEST(DecidePlacement, TheRegistrySimulatesEveryScheduledBroadcast) {
  const std::optional<models::ModelFile> loaded =
      embedded_model_simulating(mc::RuleKind::fair, 1e-9);
  ASSERT_TRUE(loaded.has_value());
  models::ModelFile m = *loaded;
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
    if (e.not_applicable) continue;
    // Every scheduled broadcast is simulated: a segmented one at some candidate segment within
    // the cap (16 KiB and up: 63 x 64 = 4032 messages; split_binary cuts halves, 8 KiB and up:
    // 63 x 64 + 63 swaps = 4095) or extrapolated past it, the others with the closed form's
    // parameters.
    EXPECT_EQ(e.simulated, view->schedule != nullptr) << e.name;
    if (view->segmented) {
      const bool within = e.extrapolated_from_segments == 0;
      EXPECT_EQ(within, e.params.segment_bytes >=
                            (e.name == "bcast.split_binary" ? 8u << 10 : 16u << 10))
          << e.name;
      EXPECT_EQ(within, view->schedule(s, e.params).messages.size() <= kMaxSimulatedMessages)
          << e.name;
    } else {
      EXPECT_EQ(closed.table[i].params, e.params) << e.name << ": the closed form's parameters";
    }
    EXPECT_GT(e.predicted_s, 0.0) << e.name;
    changed += e.predicted_s != closed.table[i].predicted_s;
  }
  EXPECT_GT(changed, 0);
}

// predict_interval(): the busiest rank of the algorithm's schedule at the given parameters,
// under the model in use. A pipeline repeats faster than a tree it loses to alone: the chain's
// middle ranks each receive and forward the message once, split_binary's inner nodes send it 1.5
// times (docs/ADAPT.md, "Back-to-back calls").
TEST(DecidePlacement, TheRepetitionIntervalIsTheScheduleBusiestRank) {
  const models::ModelLoad load =
      models::parse_model(conf::embedded_default_model(), conf::kEmbeddedModelName);
  ASSERT_TRUE(load.model.has_value());
  const models::ModelFile& m = *load.model;
  const ModelSet models{nullptr, &m};
  const CallShape s{Collective::bcast, 16, 64 << 10, 0};
  const Decision d = decide(s, models, Policy{});
  const auto at = [&](std::string_view name) {
    for (std::size_t i = 0; i < d.table.size(); ++i) {
      if (d.table[i].name == name) return static_cast<int>(i);
    }
    return -1;
  };
  const int chain = at("bcast.chain_segmented");
  const int split = at("bcast.split_binary");
  ASSERT_GE(chain, 0);
  ASSERT_GE(split, 0);
  const AlgoParams& chain_params = d.table[static_cast<std::size_t>(chain)].params;
  const std::optional<double> chain_s = predict_interval(s, chain, chain_params, models);
  const std::optional<double> split_s =
      predict_interval(s, split, d.table[static_cast<std::size_t>(split)].params, models);
  ASSERT_TRUE(chain_s && split_s);
  const mc::Schedule schedule =
      find_algorithm(Collective::bcast, "bcast.chain_segmented")->schedule(s, chain_params);
  EXPECT_EQ(*chain_s, mc::busiest_rank_s(schedule, m.plogp));
  EXPECT_LT(*chain_s, d.table[static_cast<std::size_t>(chain)].predicted_s / 2);
  EXPECT_LT(*chain_s * 1.25, *split_s);
  // No model, no such algorithm, no schedule: nothing.
  EXPECT_FALSE(predict_interval(s, chain, chain_params, ModelSet{}).has_value());
  EXPECT_FALSE(predict_interval(s, -1, chain_params, models).has_value());
  const CallShape a2a{Collective::alltoall, 16384, 8, 0};  // past the cap at any algorithm
  EXPECT_FALSE(predict_interval(a2a, 0, AlgoParams{}, models).has_value());
}

}  // namespace
}  // namespace collsel

// The Myrinet state model of seed 002 (section V.B, Figs. 5-6) against Fig. 6's printed row, on
// the graph reconstructed from Fig. 5's description (docs/MODELS.md, "Myrinet state model"), and
// against a brute-force enumeration of the maximal send sets written independently here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "models/contention/rules.hpp"

namespace collsel::models::contention {
namespace {

bool conflict(const Edge& a, const Edge& b) { return a.src == b.src || a.dst == b.dst; }

// Every subset of the communications that can send together and to which none can be added.
struct States {
  int sets = 0;
  std::vector<int> sums;  // emission coefficient of each communication
};

States brute_force_states(const std::vector<Edge>& edges) {
  const int n = static_cast<int>(edges.size());
  States s{0, std::vector<int>(n, 0)};
  for (std::uint32_t subset = 0; subset < (1u << n); ++subset) {
    const auto in = [&](int i) { return ((subset >> i) & 1u) != 0; };
    bool independent = true;
    for (int i = 0; i < n && independent; ++i) {
      for (int j = i + 1; j < n && independent; ++j) {
        if (in(i) && in(j) && conflict(edges[i], edges[j])) independent = false;
      }
    }
    if (!independent) continue;
    bool maximal = true;
    for (int k = 0; k < n && maximal; ++k) {
      if (in(k)) continue;
      bool blocked = false;
      for (int i = 0; i < n; ++i) blocked = blocked || (in(i) && conflict(edges[i], edges[k]));
      maximal = blocked;
    }
    if (!maximal) continue;
    ++s.sets;
    for (int i = 0; i < n; ++i) s.sums[i] += in(i) ? 1 : 0;
  }
  return s;
}

// Fig. 6's "Minimum": each communication gets the smallest sum among those leaving its node.
std::vector<int> minima(const std::vector<Edge>& edges, const std::vector<int>& sums) {
  std::map<int, int> slowest;
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const auto [it, fresh] = slowest.try_emplace(edges[i].src, sums[i]);
    if (!fresh) it->second = std::min(it->second, sums[i]);
  }
  std::vector<int> out;
  for (const Edge& e : edges) out.push_back(slowest.at(e.src));
  return out;
}

// Fig. 5 reconstructed: node 0 sends a, b, c to nodes 1, 2, 3; nodes 2 and 3 send d and e to
// node 1; node 3 also sends f back to node 0. A search over every graph of six communications on
// up to five nodes found no graph on three nodes, and this as the only one on four without
// parallel communications (up to renaming nodes 2 and 3 and the labels d and e), whose maximal
// send sets give Fig. 6's row.
const std::vector<Edge> kFig5 = {{0, 1}, {0, 2}, {0, 3}, {2, 1}, {3, 1}, {3, 0}};

TEST(MyrinetPaper, Fig5HasFiveStateSetsAndFig6Sums) {
  const States s = brute_force_states(kFig5);
  EXPECT_EQ(s.sets, 5);
  EXPECT_EQ(s.sums, (std::vector<int>{1, 2, 2, 2, 2, 3}));
  EXPECT_EQ(minima(kFig5, s.sums), (std::vector<int>{1, 1, 1, 2, 2, 2}));
}

TEST(MyrinetPaper, Fig6Penalties) {
  EXPECT_EQ(myrinet_penalties(kFig5), (std::vector<double>{5, 5, 5, 2.5, 2.5, 2.5}));
}

TEST(MyrinetPaper, Fig6IndependentOfEdgeOrder) {
  const std::vector<Edge> reversed(kFig5.rbegin(), kFig5.rend());
  EXPECT_EQ(myrinet_penalties(reversed), (std::vector<double>{2.5, 2.5, 2.5, 5, 5, 5}));
}

TEST(Myrinet, SingleCommunication) {
  EXPECT_EQ(myrinet_penalties(std::vector<Edge>{{3, 7}}), std::vector<double>{1.0});
  EXPECT_TRUE(myrinet_penalties({}).empty());
}

TEST(Myrinet, OutStarOfKGivesK) {
  for (int k = 2; k <= 6; ++k) {
    std::vector<Edge> star;
    for (int d = 1; d <= k; ++d) star.push_back({0, d});
    EXPECT_EQ(myrinet_penalties(star), std::vector<double>(k, k)) << "k = " << k;
  }
}

TEST(Myrinet, InStarOfKGivesK) {
  for (int k = 2; k <= 6; ++k) {
    std::vector<Edge> star;
    for (int s = 1; s <= k; ++s) star.push_back({s, 0});
    EXPECT_EQ(myrinet_penalties(star), std::vector<double>(k, k)) << "k = " << k;
  }
}

TEST(Myrinet, FullDuplexPairDoesNotConflict) {
  // 0 -> 1 and 1 -> 0 share no source and no destination: both send in the one set.
  EXPECT_EQ(myrinet_penalties(std::vector<Edge>{{0, 1}, {1, 0}}), (std::vector<double>{1, 1}));
}

TEST(Myrinet, ParallelCommunicationsShareTheLink) {
  // Two communications 0 -> 1: 2 sets, each sends in one.
  EXPECT_EQ(myrinet_penalties(std::vector<Edge>{{0, 1}, {0, 1}}), (std::vector<double>{2, 2}));
}

TEST(Myrinet, DisjointGraphsDoNotInfluenceEachOther) {
  // Fig. 5 next to an out-star of 3 on other nodes: 5 x 3 = 15 sets in all, but each penalty is
  // that of its own component.
  std::vector<Edge> both = kFig5;
  for (int d = 11; d <= 13; ++d) both.push_back({10, d});
  EXPECT_EQ(myrinet_penalties(both), (std::vector<double>{5, 5, 5, 2.5, 2.5, 2.5, 3, 3, 3}));
}

std::vector<Edge> all_to_all(int nodes) {
  std::vector<Edge> edges;
  for (int s = 0; s < nodes; ++s) {
    for (int d = 0; d < nodes; ++d) {
      if (s != d) edges.push_back({s, d});
    }
  }
  return edges;
}

TEST(Myrinet, AllToAllEnumerated) {
  // Maximal matchings of K(P,P) without its diagonal: P = 3 has 5, each communication sending in
  // 2; P = 4 has 17 and 5. The state model is harsher than fair sharing (P - 1).
  EXPECT_EQ(myrinet_penalties(all_to_all(3)), std::vector<double>(6, 2.5));
  EXPECT_EQ(myrinet_penalties(all_to_all(4)), std::vector<double>(12, 17.0 / 5.0));
  // P = 5: still within the search bound.
  const std::vector<double> p5 = myrinet_penalties(all_to_all(5));
  EXPECT_GT(p5.front(), 4.0);
  EXPECT_EQ(p5, std::vector<double>(20, p5.front()));
}

TEST(Myrinet, LargeComponentFallsBackToFairSharing) {
  // 9 x 8 = 72 communications in one component: beyond the 64 the enumeration takes.
  EXPECT_EQ(myrinet_penalties(all_to_all(9)), std::vector<double>(72, 8.0));
  // 56 and 42 communications, but the search outgrows its bound before finishing (P = 7 has
  // 3709 maximal sets).
  EXPECT_EQ(myrinet_penalties(all_to_all(8)), std::vector<double>(56, 7.0));
  EXPECT_EQ(myrinet_penalties(all_to_all(7)), std::vector<double>(42, 6.0));
  // Only the large component falls back: Fig. 5 next to it keeps its own penalties.
  std::vector<Edge> both = all_to_all(9);
  for (const Edge& e : kFig5) both.push_back({e.src + 100, e.dst + 100});
  const std::vector<double> p = myrinet_penalties(both);
  EXPECT_EQ(std::vector<double>(p.begin() + 72, p.end()),
            (std::vector<double>{5, 5, 5, 2.5, 2.5, 2.5}));
  EXPECT_EQ(p.front(), 8.0);
}

TEST(Myrinet, MatchesBruteForceOnRandomGraphs) {
  std::mt19937 rng(2008);
  for (int trial = 0; trial < 300; ++trial) {
    std::uniform_int_distribution<int> count(1, 10);
    std::uniform_int_distribution<int> node(0, 4);
    std::vector<Edge> edges;
    const int n = count(rng);
    while (static_cast<int>(edges.size()) < n) {
      const Edge e{node(rng), node(rng)};
      if (e.src != e.dst) edges.push_back(e);
    }
    const States s = brute_force_states(edges);
    const std::vector<int> mins = minima(edges, s.sums);
    std::vector<double> expected;
    for (int m : mins) expected.push_back(static_cast<double>(s.sets) / m);
    EXPECT_EQ(myrinet_penalties(edges), expected) << "trial " << trial;
  }
}

}  // namespace
}  // namespace collsel::models::contention

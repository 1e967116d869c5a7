// Myrinet penalties (seed 002, Vienne et al., section V.B, Figs. 5-6). Under Stop & Go flow
// control a communication either sends or waits, and while one sends, every communication with the
// same source node or the same destination node waits. collsel reads "all the possible
// combinations of communication states" as the maximal sets of communications that can send
// together: the maximal independent sets of the conflict graph (two communications conflict when
// they share their source or their destination), i.e. the maximal matchings of the bipartite
// sender/receiver multigraph. This reading reproduces Fig. 6 exactly on the graph reconstructed in
// docs/MODELS.md ("Myrinet state model"). Counting every independent set, maximal or not, cannot
// reproduce Fig. 6 on any graph: a, b, c share a source and their sums 1 + 2 + 2 use up all 5 sets,
// yet d sending alone would be a further set.
//   emission(c) = number of sets in which c sends
//   penalty(c)  = number of sets / min{emission(c') : c' leaves the source node of c}
// The sets of a graph are the products of the sets of its connected components, so the penalty of
// a communication depends only on its component; each component is enumerated on its own
// (Bron-Kerbosch with pivoting). The number of sets grows exponentially (the All-to-All of P nodes
// has 5, 17, 89, 529, 3709 for P = 3..7), so the enumeration is bounded: a component of more than
// 64 communications, or one whose search takes more than kMaxSearchCalls steps (tens of
// microseconds: the rule runs at every step of a simulated schedule), falls back to the fair rule max(outdegree(src), indegree(dst)). The state model
// equals it on out-stars and in-stars and exceeds it on denser graphs (the All-to-All of P = 5
// nodes, still enumerated; P = 7, with 3709 maximal sets, is over the bound and gets 6).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <unordered_map>

#include "models/contention/rules.hpp"

namespace collsel::models::contention {
namespace {

using Mask = std::uint64_t;
constexpr std::size_t kMaxStateEdges = 64;  // one bit each
constexpr std::uint64_t kMaxSearchCalls = std::uint64_t{1} << 12;

struct Tally {
  std::vector<Mask> compatible;  // per member: the members it can send together with
  std::uint64_t sets = 0;
  std::vector<std::uint64_t> emission;
  std::uint64_t calls = 0;  // over kMaxSearchCalls: abandoned

  // Bron-Kerbosch on the compatibility graph: its maximal cliques are the maximal independent
  // sets of the conflict graph.
  void expand(Mask r, Mask p, Mask x) {
    if (++calls > kMaxSearchCalls) return;
    if (p == 0 && x == 0) {
      ++sets;
      for (Mask m = r; m != 0; m &= m - 1) ++emission[std::countr_zero(m)];
      return;
    }
    int pivot = 0;
    int best = -1;
    for (Mask m = p | x; m != 0; m &= m - 1) {
      const int u = std::countr_zero(m);
      const int n = std::popcount(p & compatible[u]);
      if (n > best) {
        best = n;
        pivot = u;
      }
    }
    for (Mask m = p & ~compatible[pivot]; m != 0; m &= m - 1) {
      const int v = std::countr_zero(m);
      const Mask bit = Mask{1} << v;
      expand(r | bit, p & compatible[v], x & compatible[v]);
      p &= ~bit;
      x |= bit;
    }
  }
};

// Penalties of one connected component (indices into `edges`), written into `out`; false when the
// enumeration is abandoned (out untouched).
bool component_penalties(std::span<const Edge> edges, const std::vector<std::size_t>& members,
                         std::vector<double>& out) {
  const std::size_t n = members.size();
  Tally tally;
  tally.compatible.assign(n, 0);
  tally.emission.assign(n, 0);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      const Edge& ea = edges[members[a]];
      const Edge& eb = edges[members[b]];
      if (a != b && ea.src != eb.src && ea.dst != eb.dst) tally.compatible[a] |= Mask{1} << b;
    }
  }
  tally.expand(0, n == 64 ? ~Mask{0} : (Mask{1} << n) - 1, 0);
  if (tally.calls > kMaxSearchCalls) return false;

  std::unordered_map<int, std::uint64_t> slowest;  // per source node: its smallest emission
  for (std::size_t a = 0; a < n; ++a) {
    const int src = edges[members[a]].src;
    const auto [it, fresh] = slowest.try_emplace(src, tally.emission[a]);
    if (!fresh) it->second = std::min(it->second, tally.emission[a]);
  }
  for (std::size_t a = 0; a < n; ++a) {
    // Every communication sends in some maximal set, so the minimum is >= 1.
    out[members[a]] = static_cast<double>(tally.sets) /
                      static_cast<double>(slowest.at(edges[members[a]].src));
  }
  return true;
}

std::size_t root_of(std::vector<std::size_t>& parent, std::size_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

}  // namespace

std::vector<double> myrinet_penalties(std::span<const Edge> edges) {
  // Connected components of the conflict graph: union every communication with the first one
  // seen at its source node and at its destination node.
  std::vector<std::size_t> parent(edges.size());
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  std::unordered_map<int, std::size_t> first_from;
  std::unordered_map<int, std::size_t> first_to;
  const auto join = [&parent](std::unordered_map<int, std::size_t>& first, int node,
                              std::size_t i) {
    const auto [it, fresh] = first.try_emplace(node, i);
    if (!fresh) parent[root_of(parent, i)] = root_of(parent, it->second);
  };
  for (std::size_t i = 0; i < edges.size(); ++i) {
    join(first_from, edges[i].src, i);
    join(first_to, edges[i].dst, i);
  }
  std::unordered_map<std::size_t, std::vector<std::size_t>> components;
  std::vector<std::size_t> roots;  // in order of first appearance: deterministic
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const std::size_t root = root_of(parent, i);
    auto& members = components[root];
    if (members.empty()) roots.push_back(root);
    members.push_back(i);
  }

  std::vector<double> penalties(edges.size(), 1.0);
  std::vector<double> fair;  // computed once, only when a component is too large
  for (std::size_t root : roots) {
    const auto& members = components[root];
    if (members.size() <= kMaxStateEdges && component_penalties(edges, members, penalties)) {
      continue;
    }
    if (fair.empty()) fair = fair_penalties(edges);
    for (std::size_t i : members) penalties[i] = fair[i];
  }
  return penalties;
}

}  // namespace collsel::models::contention

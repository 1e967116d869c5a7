// Gigabit Ethernet penalties (seed 002, Vienne et al., section V.A, Definition 1 and the p_o, p_i
// cases). For communication c_i = (s, d): Delta_o = outdegree(s), Delta_i = indegree(d). Among
// the communications leaving s, the strongly slow ones (C^m_o) are those whose destination has the
// largest indegree; among those entering d, the strongly slow ones (C^m_i) are those whose source
// has the largest outdegree. Then
//   p_o = 1                                              if Delta_o = 1
//       = Delta_o beta (1 + gamma_o (Delta_o - |C^m_o|)) if c_i in C^m_o
//       = Delta_o beta (1 - gamma_o / |C^m_o|)           otherwise
// p_i likewise with Delta_i, gamma_i, C^m_i, and p = max(p_o, p_i).
// collsel clamps p to >= 1 (docs/MODELS.md, "Gigabit Ethernet penalty model"): the formulas give
// less than 1 when beta < 1 / Delta (Delta = 2, beta < 0.5), and no contention makes a transfer
// faster than it is alone; the solver rejects penalties below 1.
#include <algorithm>
#include <unordered_map>

#include "models/contention/rules.hpp"

namespace collsel::models::contention {
namespace {

// The largest degree seen on the far side of one node's communications, and how many of them
// reach it: the strongly slow set of that node is {those at `max`}, its cardinality `count`.
struct StronglySlow {
  int max = 0;
  int count = 0;
  void see(int degree) {
    if (degree > max) {
      max = degree;
      count = 1;
    } else if (degree == max) {
      ++count;
    }
  }
};

double side_penalty(int delta, bool strongly_slow, int card, double beta, double gamma) {
  if (delta == 1) return 1.0;
  const double d = static_cast<double>(delta);
  if (strongly_slow) return d * beta * (1.0 + gamma * (d - static_cast<double>(card)));
  return d * beta * (1.0 - gamma / static_cast<double>(card));
}

}  // namespace

std::vector<double> gige_penalties(std::span<const Edge> edges, const GigeParams& params) {
  std::unordered_map<int, int> outdeg;
  std::unordered_map<int, int> indeg;
  for (const Edge& e : edges) {
    ++outdeg[e.src];
    ++indeg[e.dst];
  }
  std::unordered_map<int, StronglySlow> by_source;       // C^m_o of each sending node
  std::unordered_map<int, StronglySlow> by_destination;  // C^m_i of each receiving node
  for (const Edge& e : edges) {
    by_source[e.src].see(indeg[e.dst]);
    by_destination[e.dst].see(outdeg[e.src]);
  }

  std::vector<double> penalties;
  penalties.reserve(edges.size());
  for (const Edge& e : edges) {
    const int delta_o = outdeg[e.src];
    const int delta_i = indeg[e.dst];
    const StronglySlow& mo = by_source[e.src];
    const StronglySlow& mi = by_destination[e.dst];
    const double p_o = side_penalty(delta_o, delta_i == mo.max, mo.count, params.beta,
                                    params.gamma_o);
    const double p_i = side_penalty(delta_i, delta_o == mi.max, mi.count, params.beta,
                                    params.gamma_i);
    penalties.push_back(std::max({1.0, p_o, p_i}));
  }
  return penalties;
}

}  // namespace collsel::models::contention

// Fair sharing, the baseline rule: every network card divides its bandwidth equally among the
// communications it sends or receives, and a communication goes at the pace of the busier of its
// two cards, rho(e) = max(outdegree(src), indegree(dst)). It is what seed 003's InfiniBand rule
// reduces to on graphs without mixed out-degrees (Fig. 2, graphs 1 and 2) and what a user gets
// before any calibration measured the network.
#include <algorithm>
#include <unordered_map>

#include "models/contention/rules.hpp"

namespace collsel::models::contention {

std::vector<double> fair_penalties(std::span<const Edge> edges) {
  std::unordered_map<int, int> out, in;
  for (const Edge& e : edges) {
    ++out[e.src];
    ++in[e.dst];
  }
  std::vector<double> rho;
  rho.reserve(edges.size());
  for (const Edge& e : edges) rho.push_back(std::max(out[e.src], in[e.dst]));
  return rho;
}

}  // namespace collsel::models::contention

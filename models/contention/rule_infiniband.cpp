// InfiniBand penalties, seed 003 eq. 4 and the cases (a)-(c) of k(e) (section 4.2). For an edge
// e = (s, d), with delta+ the out-degree and delta- the in-degree:
//
//   rho(e) = delta+(s) + max over e' = (s, d') leaving s of k(e')
//
// so every edge leaving s shares one penalty when delta+(s) > 1 (the sending card in back
// pressure holds all its communications back, section 4.2 "Discussion"). k(e) is
//   (a) 0 when delta-(d) <= delta+(s) and every source sending to d has delta+ = delta+(s)
//       (d is no bottleneck, or its senders share it evenly);
//   (b) 1 / (max over the other edges e' into d of rho(e') - 1) when delta+(s) = 1 and every other
//       source sending to d has delta+ >= 2 (the single flow takes what the multi-flow senders in
//       back pressure leave on d);
//   (c) otherwise the sum, over every edge e' = (s, d') leaving s and every edge e'' = (s'', d')
//       with s'' != s, of 1 / delta+(s'') (the bandwidth the other senders request on s's
//       destinations).
// Parallel edges count as distinct edges everywhere. The converted text is garbled; this reading
// reproduces every number of Fig. 2 and Fig. 4 (docs/MODELS.md, "Contention graphs", lists the
// checks and the one it does not reproduce: f of Fig. 3). Where the text applies (b) to any
// single-edge sender, (b) would be circular when another single-edge sender shares d; falling back
// to (c) there is what Fig. 4's graphs A and B need, and makes a pure incast of n single flows
// rho = n.
//
// Cost O(E log E): the sums of (c) use per-destination totals instead of walking every pair.
#include <algorithm>
#include <utility>

#include "models/contention/rules.hpp"

namespace collsel::models::contention {
namespace {

enum class Case { a, b, c };

// Node ids are arbitrary ints; index them densely so the per-node tallies are plain vectors.
struct NodeIndex {
  std::vector<int> ids;
  explicit NodeIndex(std::span<const Edge> edges) {
    ids.reserve(2 * edges.size());
    for (const Edge& e : edges) {
      ids.push_back(e.src);
      ids.push_back(e.dst);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  }
  [[nodiscard]] std::size_t operator()(int id) const {
    return static_cast<std::size_t>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
  }
  [[nodiscard]] std::size_t size() const { return ids.size(); }
};

}  // namespace

std::vector<double> infiniband_penalties(std::span<const Edge> edges) {
  const std::size_t n = edges.size();
  const NodeIndex index(edges);
  std::vector<std::size_t> src(n), dst(n);
  std::vector<int> out(index.size(), 0), in(index.size(), 0);
  for (std::size_t i = 0; i < n; ++i) {
    src[i] = index(edges[i].src);
    dst[i] = index(edges[i].dst);
    ++out[src[i]];
    ++in[dst[i]];
  }

  // Per destination: the extremes of its senders' out-degrees, how many of its edges come from
  // single-edge senders, and the total bandwidth request sum of 1 / delta+(sender).
  std::vector<int> min_out(index.size(), 0), max_out(index.size(), 0), single(index.size(), 0);
  std::vector<double> request(index.size(), 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const int o = out[src[i]];
    const std::size_t d = dst[i];
    min_out[d] = min_out[d] == 0 ? o : std::min(min_out[d], o);
    max_out[d] = std::max(max_out[d], o);
    if (o == 1) ++single[d];
    request[d] += 1.0 / o;
  }

  // Parallel edges s -> d: s's own share of d's request is their number / delta+(s).
  std::vector<std::pair<std::size_t, std::size_t>> pairs(n);
  for (std::size_t i = 0; i < n; ++i) pairs[i] = {src[i], dst[i]};
  std::sort(pairs.begin(), pairs.end());
  const auto parallel = [&](std::size_t i) {
    const auto range = std::equal_range(pairs.begin(), pairs.end(), std::pair{src[i], dst[i]});
    return static_cast<double>(range.second - range.first);
  };

  std::vector<Case> kind(n);
  std::vector<char> any_c(index.size(), 0);    // some edge of this source is case (c)
  std::vector<double> k_c(index.size(), 0.0);  // the (c) sum, identical for all edges of a source
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t s = src[i], d = dst[i];
    if (in[d] <= out[s] && min_out[d] == max_out[d]) {
      kind[i] = Case::a;
    } else if (out[s] == 1 && single[d] == 1) {
      kind[i] = Case::b;
    } else {
      kind[i] = Case::c;
      any_c[s] = 1;
    }
    // Others' requests on this destination of s (every edge of s contributes, parallel or not).
    k_c[s] += request[d] - parallel(i) / out[s];
  }

  std::vector<double> rho(n, 0.0);
  std::vector<double> max_multi(index.size(), 0.0);  // max rho of edges into d from delta+ >= 2
  for (std::size_t i = 0; i < n; ++i) {
    if (kind[i] == Case::b) continue;
    const std::size_t s = src[i];
    rho[i] = out[s] + (any_c[s] ? k_c[s] : 0.0);
    if (out[s] >= 2) max_multi[dst[i]] = std::max(max_multi[dst[i]], rho[i]);
  }
  // (b) after the rest: its conflicting edges all leave multi-edge senders, whose rho is > 2
  // (case (c) with a non-empty sum), so 1 + 1 / (rho' - 1) lies in (1, 2).
  for (std::size_t i = 0; i < n; ++i) {
    if (kind[i] == Case::b) rho[i] = 1.0 + 1.0 / (max_multi[dst[i]] - 1.0);
  }
  return rho;
}

}  // namespace collsel::models::contention

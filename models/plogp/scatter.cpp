#include "models/plogp/scatter.hpp"

#include <algorithm>
#include <bit>
#include <limits>
#include <utility>
#include <vector>

#include "models/plogp/bcast.hpp"

namespace collsel::models::plogp {
namespace {

bool nothing_sent(int P, std::uint64_t m) { return P <= 1 || m == 0; }

// j x m bytes, saturated: a product past 2^64 is far beyond any table, where g is extrapolated
// anyway, and wrapping around would instead look like a small, cheap message.
std::uint64_t times(std::uint64_t j, std::uint64_t m) {
  constexpr std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  return j != 0 && m > max / j ? max : j * m;
}

}  // namespace

// Every Scatter message goes to a receiver whose receive is already posted: the posted pair
// (g_p, L_p) of docs/MODELS.md, "Two gaps"; the stream pair without a posted column.

double scatter_flat(const Params& p, int P, std::uint64_t m, double link_s_per_byte) {
  if (nothing_sent(P, m)) return 0.0;
  return static_cast<double>(P - 1) * p.burst_gap_s(m, link_s_per_byte) + p.posted_latency_s(m);
}

double scatter_chain(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  // The root sends the blocks of all P - 1 others down the chain; each hop forwards one fewer.
  // Hop i carries the blocks of the P - i ranks behind it: its latency is L_p at that size.
  double sum = 0.0;
  for (std::uint64_t j = 1; j < static_cast<std::uint64_t>(P); ++j) {
    sum += p.posted_gap_s(times(j, m)) + p.posted_latency_s(times(j, m));
  }
  return sum;
}

namespace {

// A binomial subtree of n blocks (selector/scatter/binomial.cpp): its root sends, for each power
// of two `mask` below n from the largest down, the min(mask, n - mask) blocks of the subtree
// rooted mask vranks further, each send completed before the next. The structure depends on n
// alone, so the times are memoised by n (O(log^2 P) entries).
class BinomialScatter {
 public:
  BinomialScatter(const Params& p, std::uint64_t m) : p_(p), m_(m) {}

  // From the subtree root's receipt to the last receipt in its subtree. Child l receives after
  // the root's first l sends, g_p of each, and L_p, plus the shared fan-out: an eager message
  // still on the link when the later ones are sent shares it with them, so it waits for each
  // later message j, by min(sigma(first), sigma(j)) g_p(j) (docs/MODELS.md, "Shared fan-out").
  double subtree_s(std::uint64_t n) {
    if (n <= 1) return 0.0;
    for (const auto& [size, seconds] : memo_) {
      if (size == n) return seconds;
    }
    std::vector<std::uint64_t> blocks;
    for (std::uint64_t mask = std::bit_floor(n - 1); mask > 0; mask >>= 1) {
      blocks.push_back(std::min(mask, n - mask));
    }
    std::vector<double> gap(blocks.size());
    std::vector<double> share(blocks.size());
    for (std::size_t l = 0; l < blocks.size(); ++l) {
      gap[l] = p_.posted_gap_s(times(blocks[l], m_));
      share[l] = p_.fanout_share(times(blocks[l], m_));
    }
    double sent = 0.0;
    double last = 0.0;
    for (std::size_t l = 0; l < blocks.size(); ++l) {
      sent += gap[l];
      double shared = 0.0;
      for (std::size_t j = l + 1; j < blocks.size(); ++j) {
        shared += std::min(share[l], share[j]) * gap[j];
      }
      last = std::max(last, sent + p_.posted_latency_s(times(blocks[l], m_)) + shared +
                                subtree_s(blocks[l]));
    }
    memo_.emplace_back(n, last);
    return last;
  }

 private:
  const Params& p_;
  std::uint64_t m_;
  std::vector<std::pair<std::uint64_t, double>> memo_;
};

}  // namespace

double scatter_binomial(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  // Seed 001 Table 2's sum_{j < ceil(log2 P)} g(2^j m) + ceil(log2 P) L is this tree's critical
  // path when P is a power of two and sigma = 0 (the first child's subtree is the longest, one L
  // ahead of the next); for other P the Table charges 2^j blocks where the tree sends fewer
  // (P = 48: 63 g(m) on the longest path where the tree's is 47 g(m)), so the tree is walked.
  return BinomialScatter(p, m).subtree_s(static_cast<std::uint64_t>(P));
}

}  // namespace collsel::models::plogp

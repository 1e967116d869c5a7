#include "models/plogp/scatter.hpp"

#include <limits>

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

double scatter_flat(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  return static_cast<double>(P - 1) * p.posted_gap_s(m) + p.posted_latency_s();
}

double scatter_chain(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  // The root sends the blocks of all P - 1 others down the chain; each hop forwards one fewer.
  double sum = 0.0;
  for (std::uint64_t j = 1; j < static_cast<std::uint64_t>(P); ++j) {
    sum += p.posted_gap_s(times(j, m));
  }
  return sum + static_cast<double>(P - 1) * p.posted_latency_s();
}

double scatter_binomial(const Params& p, int P, std::uint64_t m) {
  if (nothing_sent(P, m)) return 0.0;
  const int rounds = ceil_log2(static_cast<std::uint64_t>(P));
  // Round j moves 2^j blocks (seed 001 Table 2 as written, also for P not a power of two).
  double sum = 0.0;
  for (int j = 0; j < rounds; ++j) sum += p.posted_gap_s(times(std::uint64_t{1} << j, m));
  return sum + rounds * p.posted_latency_s();
}

}  // namespace collsel::models::plogp

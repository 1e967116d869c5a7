// Scatter models of seed 001, Table 2, over pLogP. m is the size of ONE rank's block in bytes
// (the root holds P x m). Every function returns 0 when P <= 1 or m == 0.
#pragma once

#include <cstdint>

#include "models/plogp/params.hpp"

namespace collsel::models::plogp {

// (P-1) g(m) + L; with the link's time per byte known (> 0), (P-1) b(m) + L, b(m) the burst's
// gap of Params::burst_gap_s (a root's sends that wait for their transfers overlap their
// handshakes; docs/MODELS.md, "A burst of waiting sends").
double scatter_flat(const Params& p, int P, std::uint64_t m, double link_s_per_byte = 0.0);
// sum_{j=1}^{P-1} g(j m) + (P-1) L
double scatter_chain(const Params& p, int P, std::uint64_t m);
// The binomial tree's critical path: sum_{j=0}^{ceil(log2 P)-1} g(2^j m) + ceil(log2 P) L when P
// is a power of two and nothing shares the fan-out (seed 001 Table 2); otherwise the real tree's
// longest path with the shared fan-out (docs/MODELS.md, "Scatter").
double scatter_binomial(const Params& p, int P, std::uint64_t m);

}  // namespace collsel::models::plogp

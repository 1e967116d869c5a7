// Broadcast models of seed 001, Table 1 (Barchet-Estefanel & Mounie 2004), over pLogP.
// P ranks, m bytes broadcast; segmented models take the segment size s and use k = ceil(m / s)
// segments, every segment charged g(s) (the Table's g(s) x k, read literally).
// Every function returns 0 when P <= 1 or m == 0: collsel sends nothing then.
// The readings chosen where the Table is ambiguous are in docs/MODELS.md.
#pragma once

#include <cstdint>

#include "models/plogp/params.hpp"

namespace collsel::models::plogp {

// (P-1) g(m) + L. Not scatter_flat's burst: collsel's flat tree (the tree engine) completes each
// send before the next, so its rendezvous handshakes do not overlap (docs/MODELS.md, "A burst of
// waiting sends").
double bcast_flat(const Params& p, int P, std::uint64_t m);
// (P-1) g(m) + 2 g(1) + 3 L
double bcast_flat_rendezvous(const Params& p, int P, std::uint64_t m);
// (P-1) (g(s) k) + L
double bcast_flat_segmented(const Params& p, int P, std::uint64_t m, std::uint64_t s);
// (P-1) (g(m) + L)
double bcast_chain(const Params& p, int P, std::uint64_t m);
// (P-1) (g(m) + 2 g(1) + 3 L)
double bcast_chain_rendezvous(const Params& p, int P, std::uint64_t m);
// (P-1) (g(s) + L) + g(s) (k-1)
double bcast_chain_segmented(const Params& p, int P, std::uint64_t m, std::uint64_t s);
// The receives bcast.chain_preposted keeps posted (selector/bcast/chain.cpp): as many as the
// calibration's burst keeps posted when it measures g_p (calibrate/plogp_measure.cpp).
inline constexpr int kChainPrepostedReceives = 64;
// The segmented chain with up to kChainPrepostedReceives receives posted ahead: the same formula
// with g_2(s) read as g_p(s), and the pair share charged for every segment in flight
// (docs/MODELS.md, "Two receives ahead").
double bcast_chain_preposted(const Params& p, int P, std::uint64_t m, std::uint64_t s);
// Table: <= ceil(log2 P) (2 g(m) + L). collsel charges the depth of the heap-ordered binary tree
// it builds, floor(log2 P), which is exact where the bound is loose (P = 5: depth 2, not 3).
double bcast_binary(const Params& p, int P, std::uint64_t m);
// floor(log2 P) g(m) + ceil(log2 P) L
double bcast_binomial(const Params& p, int P, std::uint64_t m);
// floor(log2 P) g(m) + ceil(log2 P) (2 g(1) + 3 L)
double bcast_binomial_rendezvous(const Params& p, int P, std::uint64_t m);
// floor(log2 P) g(s) k + ceil(log2 P) L
double bcast_binomial_segmented(const Params& p, int P, std::uint64_t m, std::uint64_t s);

// Not in seed 001: van de Geijn's scatter + allgather (MPICH's large-message Bcast), with
// c = ceil(m / P): a binomial scatter of P blocks of c bytes (scatter_binomial), then P - 1 ring
// steps of one block, each g(c) + L: scatter_binomial(P, c) + (P-1) (g(c) + L).
double bcast_scatter_allgather(const Params& p, int P, std::uint64_t m);
// Not in seed 001: the same scatter, then a recursive-doubling allgather (MPICH's medium-message
// Bcast at powers of two; Bruck's doubling at other P): ceil(log2 P) rounds, round d (1, 2, 4, ...)
// moving min(d, P - d) blocks each way, g(min(d, P - d) c) + L:
// scatter_binomial(P, c) + sum over rounds of (g(min(d, P - d) c) + L).
double bcast_scatter_doubling_allgather(const Params& p, int P, std::uint64_t m);
// Not in seed 001: Open MPI's split binary tree, with h = ceil(m / 2) in k segments of s bytes:
// each half down one subtree of Open MPI's level-order binary tree, then twins swap halves:
// (the first segment's latest arrival, g(s) + L per first-child edge, 2 g(s) + L per second)
// + (k - 1) spacing + g(h) + L.
double bcast_split_binary(const Params& p, int P, std::uint64_t m, std::uint64_t s);
// Its first segment's latest arrival down Open MPI's level-order binary tree of P ranks (tree
// shape level_binary), each edge costing `second` into a second child and `first_shared` or
// `first_alone` into a first child with or without a sibling: O(log P), no walk.
double level_binary_last_arrival(int P, double first_shared, double first_alone, double second);

// Integer helpers shared by the models (exact, no floating point): floor(log2 x), ceil(log2 x)
// for x >= 1, and ceil(a / b) for b >= 1 (x == 0 gives 0; b == 0 is treated as 1).
int floor_log2(std::uint64_t x);
int ceil_log2(std::uint64_t x);
std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b);

}  // namespace collsel::models::plogp

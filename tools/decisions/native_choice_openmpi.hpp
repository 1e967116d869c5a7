// Open MPI's default choice of algorithm, one table of native_choice() (native_choice.hpp).
//
// Open MPI 4.1.4 serves Bcast, Scatter and Alltoall on an intracommunicator of 2 or more ranks
// with coll/tuned (priority 30; coll/self takes 1-rank communicators, coll/han is off by default
// in 4.1), which without a rules file or a forced algorithm (coll_tuned_use_dynamic_rules = 0)
// calls its fixed decision: ompi/mca/coll/tuned/coll_tuned_decision_fixed.c of the v4.1.x branch,
// ompi_coll_tuned_{bcast,scatter,alltoall}_intra_dec_fixed. Each is a table by communicator size
// then message size, every bound exclusive ("communicator_size < 8", "total_dsize < 2048"), with
// total_dsize = type size x count for Bcast and one block (scount at the root and for Alltoall,
// rcount elsewhere) for Scatter and Alltoall: the log's bytes. The table is kOpenMpiBcast,
// kOpenMpiScatter and kOpenMpiAlltoall in native_choice_openmpi.cpp, as data.
//
// Every rule calls ompi_coll_tuned_*_intra_do_this(..., alg, faninout = 0, segsize = 0), so no
// algorithm is segmented, and the numbers are those of coll_tuned_{bcast,scatter,alltoall}_
// decision.c (their *_algorithms enums), mapped to collsel's registered algorithms where the same
// messages move:
//
//   Bcast  1 basic_linear            root sends to every rank       -> bcast.flat
//          2 chain (fanout 0)        ompi_coll_base_topo_build_chain forces fanout 1: one chain,
//                                    the whole message per hop      -> bcast.chain
//          3 pipeline (segsize 0)    one chain, one segment         -> bcast.chain
//          4 split_binary_tree       halves down two subtrees, then swapped; segment size 0,
//                                    whose cut bcast.split_binary does not reproduce: none
//          5 binary_tree             unsegmented binary tree        -> bcast.binary
//          6 binomial                unsegmented binomial tree      -> bcast.binomial
//          7 knomial                 radix 4 (coll_tuned_bcast_algorithm_knomial_radix): none
//          8 scatter_allgather       binomial scatter + recursive-doubling allgather
//                                                         -> bcast.scatter_doubling_allgather
//          9 scatter_allgather_ring  (not chosen by the fixed rules) -> bcast.scatter_allgather
//   Scatter 1 basic_linear           root sends each block in turn  -> scatter.flat
//          2 binomial                                               -> scatter.binomial
//          3 linear_nb               root posts every send          -> scatter.flat
//   Alltoall 1 linear (basic)        everything posted, one wait    -> alltoall.all_at_once
//          2 pairwise                round k: to rank+k, from rank-k -> alltoall.direct_exchange
//          3 modified_bruck                                         -> alltoall.bruck
//          4 linear_sync             max_requests 0 (the fixed rules pass the global
//                                    ompi_coll_tuned_alltoall_max_requests, 0 by default) posts
//                                    all P-1 exchanges at once      -> alltoall.all_at_once
//          5 two_proc (P = 2)        one exchange with the peer     -> alltoall.direct_exchange
//
// Limits, as for MPICH's table: an in-place Alltoall runs
// mca_coll_base_alltoall_intra_basic_inplace whatever the rule says (the log does not say whether
// a call was in place); coll_tuned_use_dynamic_rules with a rules file, a forced
// coll_tuned_*_algorithm, or another component (han, hcoll, ucc) chosen by the user change the
// choice.
#pragma once

#include <cstdint>
#include <limits>
#include <span>

#include "selector/collective.hpp"
#include "tools/decisions/native_choice.hpp"

namespace collsel::native::openmpi {

// One message-size rule: below `below_bytes` (exclusive), algorithm `alg`; the last rule of a row
// has kEverything.
struct SizeRule {
  std::uint64_t below_bytes;
  int alg;
};
inline constexpr std::uint64_t kEverything = std::numeric_limits<std::uint64_t>::max();

// One communicator-size row: communicators of fewer than `below_procs` ranks not taken by an
// earlier row; the last row has kEveryComm.
struct CommRow {
  int below_procs;
  std::span<const SizeRule> sizes;
};
inline constexpr int kEveryComm = std::numeric_limits<int>::max();

// The rows of ompi_coll_tuned_*_intra_dec_fixed (native_choice_openmpi.cpp).
std::span<const CommRow> rows(Collective coll);

// coll/tuned's algorithm number for a shape (comm_size >= 2), as the fixed rules pick it.
int fixed_rule(Collective coll, int comm_size, std::uint64_t bytes);

// Open MPI 4.1.4's choice for an intracommunicator call of this shape.
NativeChoice choice(Collective coll, int comm_size, std::uint64_t bytes);

}  // namespace collsel::native::openmpi

// MPICH's default choice of algorithm, one table of native_choice() (native_choice.hpp).
//
// MPICH 4.0's default selection (src/mpi/coll/coll_selection.json, the tree its `auto` algorithm
// CVARs search; avg_msg_size is count x type size for Bcast and one block, sendcount x type size,
// for Alltoall: src/mpi/coll/src/csel.c, get_avg_msgsize), intracommunicators:
//
//   Bcast     P < 8                     MPIR_Bcast_intra_binomial      -> bcast.binomial
//             P >= 8, bytes <= 12288    MPIR_Bcast_intra_binomial      -> bcast.binomial
//             P >= 8 a power of two,    MPIR_Bcast_intra_scatter_recursive_doubling_allgather
//               bytes <= 524288                   -> bcast.scatter_doubling_allgather
//             P >= 8, larger            MPIR_Bcast_intra_scatter_ring_allgather
//                                                                      -> bcast.scatter_allgather
//   Scatter   any                       MPIR_Scatter_intra_binomial    -> scatter.binomial
//   Alltoall  P >= 8, block <= 256 B    MPIR_Alltoall_intra_brucks     -> alltoall.bruck
//             block <= 32768 B          MPIR_Alltoall_intra_scattered  -> alltoall.windowed, k = 32
//             larger                    MPIR_Alltoall_intra_pairwise   -> alltoall.pairwise
//
// These are the thresholds of MPICH 3's MPIR_CVAR_BCAST_MIN_PROCS = 8,
// MPIR_CVAR_BCAST_SHORT_MSG_SIZE = 12288, MPIR_CVAR_BCAST_LONG_MSG_SIZE = 524288,
// MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE = 256, MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE = 32768, kept as the
// JSON's defaults. "scattered" (src/mpi/coll/alltoall/alltoall_intra_scattered.c) posts
// MPIR_CVAR_ALLTOALL_THROTTLE = 32 exchanges (its own block included), waits for all of them,
// then posts the next 32; alltoall.windowed keeps at most 32 in flight (a sliding window), the
// nearest registered schedule, and the same one up to P = 32, where everything is posted at once.
// The scatter + allgather broadcasts have no registered equivalent, so those shapes get no
// estimate rather than a wrong one.
//
// Limits (the report says them under its savings table): an Alltoall with MPI_IN_PLACE runs
// MPIR_Alltoall_intra_pairwise_sendrecv_replace (the log does not say whether a call was in
// place; the table assumes not); MPICH's ch4 device may first split a communicator spanning
// several nodes into node-level and inter-node parts (its "compositions"), which the table, the
// generic layer those parts call, does not model; MPIR_CVAR_*_INTRA_ALGORITHM or a tuning JSON
// set by the user change the choice.
#pragma once

#include <cstdint>

#include "selector/collective.hpp"
#include "tools/decisions/native_choice.hpp"

namespace collsel::native::mpich {

// The thresholds above (src/mpi/coll/coll_selection.json of MPICH 4.0).
inline constexpr int kBcastMinProcs = 8;
inline constexpr std::uint64_t kBcastShortMsgBytes = 12288;
inline constexpr std::uint64_t kBcastLongMsgBytes = 524288;
inline constexpr int kAlltoallMinProcs = 8;
inline constexpr std::uint64_t kAlltoallShortMsgBytes = 256;
inline constexpr std::uint64_t kAlltoallMediumMsgBytes = 32768;
inline constexpr int kAlltoallThrottle = 32;

// MPICH 4.0's choice for an intracommunicator call of this shape.
NativeChoice choice(Collective coll, int comm_size, std::uint64_t bytes);

}  // namespace collsel::native::mpich

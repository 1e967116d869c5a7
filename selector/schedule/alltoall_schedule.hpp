// The communication schedules of the alltoall.* algorithms (selector/alltoall/), for the
// contention simulator (models/contention/schedule.hpp). Pure: no MPI.
#pragma once

#include <cstdint>

#include "models/contention/schedule.hpp"
#include "selector/algo_params.hpp"
#include "selector/collective.hpp"

namespace collsel::schedule {

// call.bytes is one block; empty for P <= 1 or 0 bytes, as the algorithms send nothing then.
// Only alltoall_windowed reads params (window; <= 0 or > P-1 means P-1, as the algorithm does).
models::contention::Schedule alltoall_direct_exchange(const CallShape& call,
                                                      const AlgoParams& params);
models::contention::Schedule alltoall_pairwise(const CallShape& call, const AlgoParams& params);
models::contention::Schedule alltoall_all_at_once(const CallShape& call, const AlgoParams& params);
models::contention::Schedule alltoall_windowed(const CallShape& call, const AlgoParams& params);
models::contention::Schedule alltoall_bruck(const CallShape& call, const AlgoParams& params);
models::contention::Schedule alltoall_mesh2d(const CallShape& call, const AlgoParams& params);

// Their message counts, without building them: P (P - 1) for the four exchanges, P ceil(log2 P)
// for Bruck's (0 where they send nothing). decide() refuses a schedule over its cap by these; at
// P = 1024 building the exchanges' million messages only to refuse them cost `collsel explain`
// and a new shape in explore mode 0.7 s (docs/BENCHMARKS.md, "What a decision costs").
std::uint64_t alltoall_exchange_size(const CallShape& call, const AlgoParams& params);
std::uint64_t alltoall_bruck_size(const CallShape& call, const AlgoParams& params);
// P (cols - 1) + P (rows - 1) for the mesh (models/alltoall/contention.hpp mesh_grid).
std::uint64_t alltoall_mesh2d_size(const CallShape& call, const AlgoParams& params);

}  // namespace collsel::schedule

// What collsel did not see: the calls and time of the collectives it does not serve, counted by
// the pass-through wrappers of pmpi/uncovered.cpp and written at finalize as `uncovered` log
// records (docs/LOGS.md). No MPI here, so the unit tests use it directly.
//
// A table of relaxed atomic counters indexed by the wrapped function, constant-initialised (so a
// call before MPI_Init or after the log closed is still safe), shared by every thread.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>
#include <vector>

namespace collsel::pmpi::uncovered {

// What a call's time covers: the whole collective (blocking), or only the start of one whose
// completion happens later in MPI_Wait/MPI_Test or MPI_Start (non-blocking, persistent).
enum class Timing { whole, initiation };

struct Function {
  std::string_view name;  // the MPI function, e.g. "MPI_Allreduce"
  Timing timing;
};

// Every function counted, in the order of kFunctionTable. The `_c` (MPI-4 large count) and
// `*_init` (persistent) ones are wrapped only where mpi.h declares them (MPI_VERSION >= 4).
enum class Id : std::uint8_t {
  allreduce, reduce, alltoallv, alltoallw, allgather, allgatherv, gather, gatherv, scatterv,
  barrier, ibcast, iscatter, ialltoall, bcast_init, scatter_init, alltoall_init,
  bcast_c, scatter_c, alltoall_c, allreduce_c, reduce_c, alltoallv_c, alltoallw_c, allgather_c,
  allgatherv_c, gather_c, gatherv_c, scatterv_c, ibcast_c, iscatter_c, ialltoall_c,
  bcast_init_c, scatter_init_c, alltoall_init_c,
  count_
};
inline constexpr std::size_t kFunctions = static_cast<std::size_t>(Id::count_);

inline constexpr std::array<Function, kFunctions> kFunctionTable{{
    {"MPI_Allreduce", Timing::whole},
    {"MPI_Reduce", Timing::whole},
    {"MPI_Alltoallv", Timing::whole},
    {"MPI_Alltoallw", Timing::whole},
    {"MPI_Allgather", Timing::whole},
    {"MPI_Allgatherv", Timing::whole},
    {"MPI_Gather", Timing::whole},
    {"MPI_Gatherv", Timing::whole},
    {"MPI_Scatterv", Timing::whole},
    {"MPI_Barrier", Timing::whole},
    {"MPI_Ibcast", Timing::initiation},
    {"MPI_Iscatter", Timing::initiation},
    {"MPI_Ialltoall", Timing::initiation},
    {"MPI_Bcast_init", Timing::initiation},
    {"MPI_Scatter_init", Timing::initiation},
    {"MPI_Alltoall_init", Timing::initiation},
    {"MPI_Bcast_c", Timing::whole},
    {"MPI_Scatter_c", Timing::whole},
    {"MPI_Alltoall_c", Timing::whole},
    {"MPI_Allreduce_c", Timing::whole},
    {"MPI_Reduce_c", Timing::whole},
    {"MPI_Alltoallv_c", Timing::whole},
    {"MPI_Alltoallw_c", Timing::whole},
    {"MPI_Allgather_c", Timing::whole},
    {"MPI_Allgatherv_c", Timing::whole},
    {"MPI_Gather_c", Timing::whole},
    {"MPI_Gatherv_c", Timing::whole},
    {"MPI_Scatterv_c", Timing::whole},
    {"MPI_Ibcast_c", Timing::initiation},
    {"MPI_Iscatter_c", Timing::initiation},
    {"MPI_Ialltoall_c", Timing::initiation},
    {"MPI_Bcast_init_c", Timing::initiation},
    {"MPI_Scatter_init_c", Timing::initiation},
    {"MPI_Alltoall_init_c", Timing::initiation},
}};

// Counts one call of `id` that took `seconds` (PMPI_Wtime around the PMPI_ routine).
void add(Id id, double seconds) noexcept;

// One function's totals on this rank.
struct Count {
  std::string_view name;
  Timing timing = Timing::whole;
  std::uint64_t calls = 0;
  double time_s = 0.0;
};

// The functions called at least once, in table order.
std::vector<Count> snapshot();

// Zeroes every counter (tests).
void reset() noexcept;

}  // namespace collsel::pmpi::uncovered

// What collsel did not see: the calls and time of the collectives it does not serve, counted by
// the pass-through wrappers of pmpi/uncovered.cpp, and the calls of the ones it serves that ran
// native before a communicator's [runtime] serve_from_call-th call (pmpi/runtime.cpp), written
// at finalize as `uncovered` log records (docs/LOGS.md). No MPI here, so the unit tests use it
// directly.
//
// A table of relaxed atomic counters indexed by the wrapped function, constant-initialised (so a
// call before MPI_Init or after the log closed is still safe), shared by every thread. While the
// log is open the counters live in its summary table file (attach(): a shared file mapping), so
// that a rank killed by SIGKILL or a signal, which writes no `uncovered` records, leaves them for
// the reader (common/summary_table_format.hpp).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>
#include <span>
#include <vector>

#include "common/summary_table_format.hpp"

namespace collsel::pmpi::uncovered {

// What a call's time covers: the whole collective (blocking), or only the start of one whose
// completion happens later in MPI_Wait/MPI_Test or MPI_Start (non-blocking, persistent).
enum class Timing { whole, initiation };

// Why collsel ran the call natively without a record: a collective it does not serve, or one it
// serves, called on a communicator (not MPI_COMM_WORLD) before its [runtime] serve_from_call-th
// call, where a binding would cost more than a short-lived communicator gains (docs/CONFIG.md).
enum class Reason { not_served, before_serving };

struct Function {
  std::string_view name;  // the MPI function, e.g. "MPI_Allreduce"
  Timing timing;
  Reason reason = Reason::not_served;
};

// Every function counted, in the order of kFunctionTable. The `_c` (MPI-4 large count) and
// `*_init` (persistent) ones are wrapped only where mpi.h declares them (MPI_VERSION >= 4).
enum class Id : std::uint8_t {
  allreduce, reduce, alltoallv, alltoallw, allgather, allgatherv, gather, gatherv, scatterv,
  barrier, ibcast, iscatter, ialltoall, bcast_init, scatter_init, alltoall_init,
  bcast_c, scatter_c, alltoall_c, allreduce_c, reduce_c, alltoallv_c, alltoallw_c, allgather_c,
  allgatherv_c, gather_c, gatherv_c, scatterv_c, ibcast_c, iscatter_c, ialltoall_c,
  bcast_init_c, scatter_init_c, alltoall_init_c,
  bcast_before_serving, scatter_before_serving, alltoall_before_serving,
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
    {"MPI_Bcast", Timing::whole, Reason::before_serving},
    {"MPI_Scatter", Timing::whole, Reason::before_serving},
    {"MPI_Alltoall", Timing::whole, Reason::before_serving},
}};

// Counts one call of `id` that took `seconds` (PMPI_Wtime around the PMPI_ routine).
void add(Id id, double seconds) noexcept;

// One function's totals on this rank.
struct Count {
  std::string_view name;
  Timing timing = Timing::whole;
  Reason reason = Reason::not_served;
  std::uint64_t calls = 0;
  double time_s = 0.0;
};

// The functions called at least once, in table order; those not served only with
// `with_not_served` (a build whose wrappers count them: flavour::counts_uncovered()).
std::vector<Count> snapshot(bool with_not_served = true);

// Zeroes every counter (tests).
void reset() noexcept;

// Moves the counters into `cells` (kFunctions of them, in the summary table file; their names,
// timings and reasons are written too, and `counted` for the functions this build counts: all
// with `with_not_served`, else those before serving only), carrying the counts so far over.
// detach() moves them back into process memory, before the cells are unmapped. Called at start-up
// and at the log's close, when no other thread makes MPI calls (MPI_Init and MPI_Finalize are
// not concurrent with other MPI calls): a call counted concurrently with the move could be lost.
void attach(std::span<summary_table::Uncovered, kFunctions> cells, bool with_not_served) noexcept;
void detach(const summary_table::Uncovered* cells) noexcept;

}  // namespace collsel::pmpi::uncovered

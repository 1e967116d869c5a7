// The placement of a communicator's ranks on nodes, as decide() needs it to simulate schedules.
// Shared by the shim (one gather per private communicator, pmpi/private_comms.cpp) and the
// measurements that compare with it (calibrate/compare.cpp), so both see the same nodes.
#pragma once

#include <mpi.h>

#include <optional>

#include "models/contention/schedule.hpp"

namespace collsel {

// Collective over `comm` (PMPI only, so it never re-enters the shim): ranks whose
// MPI_Get_processor_name agree share a node (MPICH and SMPI return the host name). Nothing, on
// every rank alike, when an allocation failed on some rank: the ranks agree on that inside.
std::optional<models::contention::Placement> gather_node_placement(MPI_Comm comm);

// Every rank's `width` bytes at `mine` into `all` (size x width bytes, rank r's at r x width):
// an allgather by Bruck's algorithm over PMPI_Sendrecv (ceil(log2 size) rounds, explicit sources,
// tag `tag`), collective over `comm`, in `scratch` (size x width bytes too): it allocates
// nothing, so no rank can fail alone once the ranks agreed their buffers exist. Why not PMPI_Allgather: SMPI's default selector implements it
// with one request per peer and a wait over all of them, which SimGrid serves in time quadratic
// in the requests: at 256 simulated ranks the placement gather took 10.7 s of wall time, this
// 0.1 s (docs/BENCHMARKS.md, "At scale"). No message of collsel or the program may be pending on
// `comm` with this tag (a fresh private communicator, or calibration's own).
void allgather_blocks(const void* mine, int width, void* all, void* scratch, MPI_Comm comm,
                      int tag = 0);

}  // namespace collsel

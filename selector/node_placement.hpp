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

}  // namespace collsel

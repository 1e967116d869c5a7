// Text from every rank of MPI_COMM_WORLD to world rank 0, for what a run's ranks learned
// separately and one rank writes (the learned table, issue 16). Collective over MPI_COMM_WORLD:
// call it only where every rank is known to be (MPI_Finalize), never from a rank-local path.
#pragma once

#include <string>
#include <vector>

namespace collsel::pmpi {

// World rank 0 gets every rank's text, indexed by world rank (its own included); the others an
// empty vector. Errors are returned, not fatal (the program's handler on MPI_COMM_WORLD is set
// back afterwards): a failure gives rank 0 an empty vector too.
std::vector<std::string> gather_text_to_world_root(const std::string& mine);

}  // namespace collsel::pmpi

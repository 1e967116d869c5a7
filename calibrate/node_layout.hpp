// Which ranks of a job share a node: what the contention graphs (seed 003 section 3.3) and the
// 1:P-P:1 benchmark (seed 004 section 3) need to place their senders and receivers.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace collsel::calibrate {

// Test-only knob: COLLSEL_FAKE_NODES=K splits the ranks into K pseudo-nodes of consecutive ranks
// (rank r on node r * K / size) instead of reading processor names. It lets the contention
// graphs run on one machine to check the code path; the times it measures are shared memory's,
// not a network's, so a model calibrated with it describes nothing.
inline constexpr const char* kFakeNodesVariable = "COLLSEL_FAKE_NODES";

struct NodeLayout {
  std::vector<int> node_of_rank;            // rank -> node index
  std::vector<std::vector<int>> ranks_of_node;  // node index -> its ranks, increasing
  std::vector<std::string> node_names;      // processor name of each node (or "fake-node-i")
  bool fake = false;                        // from COLLSEL_FAKE_NODES

  [[nodiscard]] int nodes() const { return static_cast<int>(ranks_of_node.size()); }
  [[nodiscard]] int ranks() const { return static_cast<int>(node_of_rank.size()); }
  [[nodiscard]] int max_ranks_per_node() const;
};

// Nodes in order of first appearance of their names (rank 0 is on node 0). Pure.
NodeLayout layout_from_names(const std::vector<std::string>& processor_names);

// `nodes` pseudo-nodes of consecutive ranks (1 <= nodes <= ranks). Pure.
NodeLayout fake_layout(int ranks, int nodes);

// Collective over `comm`: the same layout on every rank. COLLSEL_FAKE_NODES, when set to an
// integer between 1 and the communicator's size, replaces the processor names (above); another
// value is ignored with a message on rank 0.
NodeLayout node_layout(MPI_Comm comm);

}  // namespace collsel::calibrate

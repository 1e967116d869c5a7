// scatter.binomial: vrank v owns the blocks of its binomial subtree [v, v + n_v); it receives them
// from its parent in one message, keeps the first, and sends each child c its subtree's blocks,
// largest subtree first.
// Cost (seed 001 Table 2): sum_{j=0}^{ceil(log2 P)-1} g(2^j m) + ceil(log2 P) L.
// Works for any P, root, count (0 included), datatype, and MPI_IN_PLACE at the root.
#include <optional>

#include "flavour/flavour.hpp"
#include "selector/byte_view.hpp"
#include "selector/scatter/algorithms.hpp"
#include "selector/scatter/blocks.hpp"
#include "selector/schedule/tree.hpp"

namespace collsel::scatter {

int binomial(const ScatterCall& call, const AlgoParams&) {
  const std::uint64_t m = block_bytes(call);
  if (m == 0) return MPI_SUCCESS;
  const int vrank = schedule::to_vrank(call.rank, call.root, call.size);
  const schedule::TreeNode node =
      schedule::tree_node(schedule::TreeShape::binomial, vrank, call.size);
  const auto span_bytes = [&](int vranks) {
    return static_cast<int>(static_cast<std::uint64_t>(vranks) * m);
  };

  // `subtree` holds the blocks of vranks [vrank, vrank + n) with the block of `first` first.
  flavour::Scratch received;
  const std::byte* subtree = nullptr;
  int first = vrank;
  int error = MPI_SUCCESS;
  std::optional<RootBlocks> root_blocks;
  if (vrank == 0) {
    root_blocks.emplace(call, 1, error);
    if (error != MPI_SUCCESS) return error;
    first = 1;
  } else {
    const int n = schedule::binomial_subtree_size(vrank, call.size);
    received = flavour::Scratch(static_cast<std::size_t>(span_bytes(n)));
    const int parent = schedule::to_rank(node.parent, call.root, call.size);
    if (int e = PMPI_Recv(received.data(), span_bytes(n), MPI_BYTE, parent, data_tag(call), call.comm,
                          MPI_STATUS_IGNORE);
        e != MPI_SUCCESS) {
      return e;
    }
    subtree = received.data();
  }
  const auto block_of = [&](int v) {
    return root_blocks ? root_blocks->block(v)
                       : subtree + static_cast<std::uint64_t>(v - first) * m;
  };

  const int own = vrank == 0 ? root_keeps_own_block(call) : deliver_own_block(call, subtree);
  if (own != MPI_SUCCESS) return own;
  // One child at a time, largest subtree first (binomial_node's order), as Table 2 assumes.
  // Posted together, the sends shared the link and the largest subtree's blocks arrived last:
  // 11 m/B instead of 7 m/B at P = 8 (docs/BENCHMARKS.md, "Calibration").
  for (int child : node.children) {
    const int n = schedule::binomial_subtree_size(child, call.size);
    if (int e = PMPI_Send(block_of(child), span_bytes(n), MPI_BYTE,
                          schedule::to_rank(child, call.root, call.size), data_tag(call), call.comm);
        e != MPI_SUCCESS) {
      return e;
    }
  }
  return MPI_SUCCESS;
}

}  // namespace collsel::scatter

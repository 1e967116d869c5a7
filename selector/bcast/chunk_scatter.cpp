#include "selector/bcast/chunk_scatter.hpp"

#include "selector/schedule/tree.hpp"

namespace collsel::bcast {

int scatter_chunks(const BcastCall& call, std::byte* bytes, const schedule::Chunks& chunks) {
  const int P = call.size;
  const int v = schedule::to_vrank(call.rank, call.root, P);
  const auto rank_of = [&](int vrank) { return schedule::to_rank(vrank, call.root, P); };
  const auto length = [&](int first) {
    return static_cast<int>(chunks.bytes(first, schedule::binomial_subtree_size(first, P)));
  };
  const schedule::TreeNode node = schedule::tree_node(schedule::TreeShape::binomial, v, P);
  if (node.parent >= 0) {
    if (int e = PMPI_Recv(bytes + chunks.begin(v), length(v), MPI_BYTE, rank_of(node.parent),
                          data_tag(call), call.comm, MPI_STATUS_IGNORE);
        e != MPI_SUCCESS) {
      return e;
    }
  }
  for (int child : node.children) {
    if (int e = PMPI_Send(bytes + chunks.begin(child), length(child), MPI_BYTE, rank_of(child),
                          data_tag(call), call.comm);
        e != MPI_SUCCESS) {
      return e;
    }
  }
  return MPI_SUCCESS;
}

}  // namespace collsel::bcast

// scatter.flat: the root sends every rank its block directly, in virtual-rank order; no byte
// staging at all, MPI matches the typed send and receive.
// Cost (seed 001 Table 2): (P-1) g(m) + L.
// Works for any P, root, count (0 included), datatype, and MPI_IN_PLACE at the root.
#include "selector/byte_view.hpp"
#include "selector/scatter/algorithms.hpp"
#include "selector/scatter/blocks.hpp"
#include "selector/schedule/tree.hpp"

namespace collsel::scatter {

int flat(const ScatterCall& call, const AlgoParams&) {
  if (block_bytes(call) == 0) return MPI_SUCCESS;
  if (call.rank != call.root) {
    return PMPI_Recv(call.recvbuf, call.recvcount, call.recvtype, call.root, data_tag(call), call.comm,
                     MPI_STATUS_IGNORE);
  }
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_get_extent(call.sendtype, &lb, &extent);
  Requests sending;
  for (int v = 1; v < call.size; ++v) {
    const int rank = schedule::to_rank(v, call.root, call.size);
    const auto* block = static_cast<const char*>(call.sendbuf) +
                        static_cast<MPI_Aint>(rank) * call.sendcount * extent;
    if (int e = PMPI_Isend(block, call.sendcount, call.sendtype, rank, data_tag(call), call.comm,
                           sending.add());
        e != MPI_SUCCESS) {
      return e;
    }
  }
  if (int e = root_keeps_own_block(call); e != MPI_SUCCESS) return e;
  return sending.wait();
}

}  // namespace collsel::scatter

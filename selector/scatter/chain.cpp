// scatter.chain: the root sends the blocks of vranks 1..P-1 to vrank 1 in one message; vrank v
// keeps the first block of what it receives and forwards the rest to v+1.
// Cost (seed 001 Table 2): sum_{j=1}^{P-1} g(j m) + (P-1) L.
// Works for any P, root, count (0 included), datatype, and MPI_IN_PLACE at the root.

#include "flavour/flavour.hpp"
#include "selector/byte_view.hpp"
#include "selector/scatter/algorithms.hpp"
#include "selector/scatter/blocks.hpp"
#include "selector/schedule/tree.hpp"

namespace collsel::scatter {

int chain(const ScatterCall& call, const AlgoParams&) {
  const std::uint64_t m = block_bytes(call);
  if (m == 0) return MPI_SUCCESS;
  const int vrank = schedule::to_vrank(call.rank, call.root, call.size);
  const int next = schedule::to_rank(vrank + 1, call.root, call.size);
  const bool has_next = vrank + 1 < call.size;
  const auto bytes_from = [&](int v) { return static_cast<int>(static_cast<std::uint64_t>(call.size - v) * m); };

  if (vrank == 0) {
    int error = MPI_SUCCESS;
    const RootBlocks blocks(call, 1, error);
    if (error != MPI_SUCCESS) return error;
    Requests sending;
    if (has_next) {
      if (int e = PMPI_Isend(blocks.block(1), bytes_from(1), MPI_BYTE, next, data_tag(call), call.comm,
                             sending.add());
          e != MPI_SUCCESS) {
        return e;
      }
    }
    if (int e = root_keeps_own_block(call); e != MPI_SUCCESS) return e;
    return sending.wait();
  }

  const int previous = schedule::to_rank(vrank - 1, call.root, call.size);
  flavour::Scratch received(static_cast<std::size_t>(bytes_from(vrank)));
  if (int e = PMPI_Recv(received.data(), bytes_from(vrank), MPI_BYTE, previous, data_tag(call),
                        call.comm, MPI_STATUS_IGNORE);
      e != MPI_SUCCESS) {
    return e;
  }
  Requests sending;
  if (has_next) {
    if (int e = PMPI_Isend(received.data() + m, bytes_from(vrank + 1), MPI_BYTE, next, data_tag(call),
                           call.comm, sending.add());
        e != MPI_SUCCESS) {
      return e;
    }
  }
  if (int e = deliver_own_block(call, received.data()); e != MPI_SUCCESS) return e;
  return sending.wait();
}

}  // namespace collsel::scatter

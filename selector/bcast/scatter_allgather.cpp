// bcast.scatter_allgather: van de Geijn's broadcast (Barnett, Gupta, Payne, Shuler, van de Geijn
// and Watts 1994; MPICH's MPIR_Bcast_intra_scatter_ring_allgather). The root's bytes are cut into
// P chunks of ceil(n / P) bytes (the last ones shorter or empty); a binomial scatter gives vrank v
// the chunks of its subtree [v, v + subtree), then P - 1 ring steps in vrank order: at step s,
// vrank v passes chunk (v - s) mod P to v + 1 and receives chunk (v - s - 1) mod P from v - 1.
// Each byte crosses about two links instead of log2 P: for large messages on many ranks it beats
// every tree (docs/BENCHMARKS.md, "At scale": SMPI's MPICH selector runs it for 1-16 MiB at 100
// ranks, 1.6-3.1x faster than collsel's trees were).
// The root has every chunk, so the ring's closing hop (vrank P-1 -> root) is left out: the ring
// becomes a chain, with the same steps and no cycle of blocking sends.
// Cost: scatter_binomial(P, ceil(n/P)) + (P-1) (g(ceil(n/P)) + L) (models/plogp/bcast.hpp).
// Works for any P, root, count (0 included) and datatype: bytes as in tree_engine.cpp.
#include "selector/bcast/algorithms.hpp"
#include "selector/bcast/broadcast_bytes.hpp"
#include "selector/bcast/chunk_scatter.hpp"
#include "selector/schedule/tree.hpp"

namespace collsel::bcast {
namespace {

using schedule::to_rank;
using schedule::to_vrank;

int ring(const BcastCall& call, std::byte* bytes, std::uint64_t total) {
  const int P = call.size;
  const int v = to_vrank(call.rank, call.root, P);
  const schedule::Chunks chunks(total, P);
  if (int e = scatter_chunks(call, bytes, chunks); e != MPI_SUCCESS) return e;

  // Within the message's int count (the registry's applicability check).
  const auto length = [&](int chunk) { return static_cast<int>(chunks.bytes(chunk, 1)); };
  // A message from the parent in the scatter and from v - 1 in the ring share (source, tag) when
  // the parent is v - 1: both sides post them in the same order, so MPI's non-overtaking rule
  // matches them.
  const int right = v + 1 < P ? to_rank(v + 1, call.root, P) : MPI_PROC_NULL;
  const int left = v > 0 ? to_rank(v - 1, call.root, P) : MPI_PROC_NULL;
  for (int s = 0; s + 1 < P; ++s) {
    const int out = chunks.ring_chunk(v, s);
    const int in = chunks.ring_chunk(v, s + 1);
    if (int e = PMPI_Sendrecv(bytes + chunks.begin(out), length(out), MPI_BYTE, right,
                              data_tag(call), bytes + chunks.begin(in), length(in), MPI_BYTE,
                              left, data_tag(call), call.comm, MPI_STATUS_IGNORE);
        e != MPI_SUCCESS) {
      return e;
    }
  }
  return MPI_SUCCESS;
}

}  // namespace

int scatter_allgather(const BcastCall& call, const AlgoParams&) {
  return broadcast_bytes(
      call, [&](std::byte* bytes, std::uint64_t total) { return ring(call, bytes, total); });
}

}  // namespace collsel::bcast

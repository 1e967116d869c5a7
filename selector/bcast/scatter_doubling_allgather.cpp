// bcast.scatter_doubling_allgather: the scatter-allgather broadcast with a recursive-doubling
// allgather (MPICH's MPIR_Bcast_intra_scatter_recursive_doubling_allgather, its default for
// medium messages at a power-of-two size; SMPI's scatter_rdb_allgather; Open MPI's
// scatter_allgather). The root's bytes are cut into P chunks and scattered down a binomial tree
// as bcast.scatter_allgather does (chunk_scatter.hpp); then ceil(log2 P) rounds in which every
// vrank doubles the chunks it holds (schedule::doubling_round: recursive doubling at a power of
// two, Bruck's doubling otherwise). The ring's P - 1 steps become log2 P rounds of the same total
// bytes: at 256 ranks on simulated 25 Gbit/s Ethernet SMPI's scatter_rdb_allgather ran a 16 MiB
// Bcast 1.09x faster than any collsel algorithm (docs/BENCHMARKS.md, "At scale").
// The root has every chunk, so nothing is sent to it (as the ring leaves out its closing hop): it
// only reads, and its partners only receive in their rounds with it.
// Cost: scatter_binomial(P, ceil(n/P)) + per round (g(c ceil(n/P)) + L), c chunks that round
// (models/plogp/bcast.hpp).
// Works for any P, root, count (0 included) and datatype: bytes as in tree_engine.cpp.
#include "selector/bcast/algorithms.hpp"
#include "selector/bcast/broadcast_bytes.hpp"
#include "selector/bcast/chunk_scatter.hpp"
#include "selector/byte_view.hpp"
#include "selector/schedule/tree.hpp"

namespace collsel::bcast {
namespace {

int doubling(const BcastCall& call, std::byte* bytes, std::uint64_t total) {
  const int P = call.size;
  const int v = schedule::to_vrank(call.rank, call.root, P);
  const schedule::Chunks chunks(total, P);
  if (int e = scatter_chunks(call, bytes, chunks); e != MPI_SUCCESS) return e;

  const auto rank_of = [&](int vrank) { return schedule::to_rank(vrank, call.root, P); };
  // Within the message's int count (the registry's applicability check).
  const auto length = [&](schedule::ChunkRun run) {
    return static_cast<int>(chunks.bytes(run.first, run.count));
  };
  // d doubles up to the largest power of two below P, without overflowing an int.
  for (int d = 1; d < P; d = d > P / 2 ? P : 2 * d) {
    const schedule::DoublingRound round = schedule::doubling_round(v, P, d);
    // A message from the scatter's parent and one of a round share (source, tag) when the parent
    // is this round's sender; both sides post them in program order, and a run's two pieces in
    // the same order, so MPI's non-overtaking rule matches them.
    Requests pending;
    // One message per run of chunks (two where the run wraps past the last chunk).
    const auto post = [&](int first, auto start) -> int {
      for (const schedule::ChunkRun run : schedule::chunk_runs(first, round.count, P)) {
        if (run.count == 0) continue;
        if (int e = start(bytes + chunks.begin(run.first), length(run)); e != MPI_SUCCESS) {
          return e;
        }
      }
      return MPI_SUCCESS;
    };
    if (v != 0) {
      const int from = rank_of(round.from);
      if (int e = post(round.receive_first,
                       [&](std::byte* at, int n) {
                         return PMPI_Irecv(at, n, MPI_BYTE, from, data_tag(call), call.comm,
                                           pending.add());
                       });
          e != MPI_SUCCESS) {
        return e;
      }
    }
    if (round.to != 0) {
      const int to = rank_of(round.to);
      if (int e = post(round.send_first,
                       [&](std::byte* at, int n) {
                         return PMPI_Isend(at, n, MPI_BYTE, to, data_tag(call), call.comm,
                                           pending.add());
                       });
          e != MPI_SUCCESS) {
        return e;
      }
    }
    if (int e = pending.wait(); e != MPI_SUCCESS) return e;
  }
  return MPI_SUCCESS;
}

}  // namespace

int scatter_doubling_allgather(const BcastCall& call, const AlgoParams&) {
  return broadcast_bytes(
      call, [&](std::byte* bytes, std::uint64_t total) { return doubling(call, bytes, total); });
}

}  // namespace collsel::bcast

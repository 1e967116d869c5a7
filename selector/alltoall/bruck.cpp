// alltoall.bruck: Bruck et al.'s log-round index algorithm for small blocks. Every block is packed
// into one byte buffer rotated by rank (slot j holds the block for rank+j); in round j (d = 2^j,
// ceil(log2 n) rounds) the slots whose index has bit j set go, gathered into one message, to
// rank+d, and the same slots are refilled from rank-d. Afterwards slot j holds rank-j's block for
// this rank, which the inverse rotation unpacks into receive block rank-j.
// Cost: models/alltoall/contention.hpp bruck: per round one message of bruck_round_blocks(n, j)
// blocks, plus copies of 2 n m (rotations) + 2 sum_j b_j m (gathering and refilling) bytes.
// Works for any P, count (0 included), datatypes (packed, byte_view.hpp) and MPI_IN_PLACE (every
// block is packed before any arrives). Needs n m <= INT_MAX (registry applicability, bruck_fits).
#include <algorithm>
#include <cstddef>

#include "flavour/flavour.hpp"
#include "models/alltoall/contention.hpp"
#include "selector/alltoall/algorithms.hpp"
#include "selector/alltoall/blocks.hpp"

namespace collsel::alltoall {

int bruck(const AlltoallCall& call, const AlgoParams&) {
  const std::size_t m = block_bytes(call);
  if (m == 0) return MPI_SUCCESS;
  const int n = call.size;
  const int rank = call.rank;
  const Outgoing out = outgoing(call);
  flavour::Scratch slots(static_cast<std::size_t>(n) * m);
  const auto slot = [&](int j) { return slots.data() + static_cast<std::size_t>(j) * m; };
  for (int j = 0; j < n; ++j) {
    if (int e = pack_block(out.buffer, out.count, out.type, (rank + j) % n, slot(j), call.comm);
        e != MPI_SUCCESS) {
      return e;
    }
  }

  // Round j moves b_j blocks; b_0 = floor(n/2) is the most any round moves.
  flavour::Scratch sending(static_cast<std::size_t>(n / 2) * m);
  flavour::Scratch receiving(sending.size());
  for (int j = 0; (1 << j) < n; ++j) {
    const int d = 1 << j;
    const auto bytes = static_cast<int>(models::alltoall::bruck_round_blocks(n, j) * m);
    std::byte* next = sending.data();
    for (int i = d; i < n; ++i) {
      if (i & d) next = std::copy_n(slot(i), m, next);
    }
    if (int e = PMPI_Sendrecv(sending.data(), bytes, MPI_BYTE, (rank + d) % n, data_tag(call),
                              receiving.data(), bytes, MPI_BYTE, (rank - d + n) % n, data_tag(call),
                              call.comm, MPI_STATUS_IGNORE);
        e != MPI_SUCCESS) {
      return e;
    }
    const std::byte* from = receiving.data();
    for (int i = d; i < n; ++i) {
      if (i & d) {
        std::copy_n(from, m, slot(i));
        from += m;
      }
    }
  }

  for (int j = 0; j < n; ++j) {
    if (int e = unpack_block(slot(j), call.recvbuf, call.recvcount, call.recvtype,
                             (rank - j + n) % n, call.comm);
        e != MPI_SUCCESS) {
      return e;
    }
  }
  return MPI_SUCCESS;
}

}  // namespace collsel::alltoall

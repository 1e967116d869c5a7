// alltoall.direct_exchange: seed 000 Algorithm 1. The own block is copied locally, then in round
// t = 1 .. n-1 rank i sends its block for i+t to i+t and receives i-t's block for it (mod n), one
// PMPI_Sendrecv per round; the rotating destination spreads the load over the receivers.
// Cost: models/alltoall/contention.hpp direct_exchange, (n-1)((alpha + m beta) gamma + delta).
// Works for any P, count (0 included), datatypes (typed end to end), and MPI_IN_PLACE (blocks.hpp).
#include "selector/alltoall/algorithms.hpp"
#include "selector/alltoall/blocks.hpp"

namespace collsel::alltoall {

int direct_exchange(const AlltoallCall& call, const AlgoParams&) {
  if (block_bytes(call) == 0) return MPI_SUCCESS;
  const Exchange exchange(call);
  if (int e = exchange.keep_own_block(); e != MPI_SUCCESS) return e;
  const int n = call.size;
  for (int t = 1; t < n; ++t) {
    if (int e = exchange.sendrecv((call.rank + t) % n, (call.rank - t + n) % n); e != MPI_SUCCESS) {
      return e;
    }
  }
  return MPI_SUCCESS;
}

}  // namespace collsel::alltoall

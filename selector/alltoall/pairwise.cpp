// alltoall.pairwise: n-1 rounds of one exchange each, like MPICH's pairwise Alltoall. When n is a
// power of two the partner of round t is rank XOR t, so both sides of a round are the same pair
// (an involution: i^t^t = i, and t = 1 .. n-1 visits every other rank once); otherwise round t
// sends to rank+t and receives from rank-t as in direct exchange.
// Cost: models/alltoall/contention.hpp direct_exchange (the same n-1 single-exchange rounds).
// Works for any P, count (0 included), datatypes (typed end to end), and MPI_IN_PLACE (blocks.hpp).
#include "selector/alltoall/algorithms.hpp"
#include "selector/alltoall/blocks.hpp"

namespace collsel::alltoall {

int pairwise(const AlltoallCall& call, const AlgoParams&) {
  if (block_bytes(call) == 0) return MPI_SUCCESS;
  const Exchange exchange(call);
  if (int e = exchange.keep_own_block(); e != MPI_SUCCESS) return e;
  const int n = call.size;
  const bool power_of_two = (n & (n - 1)) == 0;
  for (int t = 1; t < n; ++t) {
    const int to = power_of_two ? call.rank ^ t : (call.rank + t) % n;
    const int from = power_of_two ? call.rank ^ t : (call.rank - t + n) % n;
    if (int e = exchange.sendrecv(to, from); e != MPI_SUCCESS) return e;
  }
  return MPI_SUCCESS;
}

}  // namespace collsel::alltoall

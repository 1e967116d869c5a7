// alltoall.all_at_once: every receive (from rank+t, t = 1 .. n-1) and then every send (to rank-t)
// is posted at once, the own block is copied while they are in flight, and one Waitall ends the
// call. MPICH's "scattered" schedule without its batching, and Open MPI's "linear": n-1 messages
// per process compete for the network, which the model charges through rho at n-1 exchanges in
// flight. The order is both libraries' (receive from rank+t, send to rank-t), so the schedule is
// theirs under any arrival order; in SMPI it then takes exactly Open MPI's linear's time. The
// mirror order (receive from rank-t, send to rank+t; until the seventeenth session) was up to
// 15 % slower when the ranks leave SMPI's default barrier at different times, and up to 12 %
// faster when they leave it together (docs/BENCHMARKS.md, "The libraries' All-to-All order").
// Cost: models/alltoall/contention.hpp all_at_once (windowed with k = n-1).
// Works for any P, count (0 included), datatypes (typed end to end), and MPI_IN_PLACE (blocks.hpp).
#include "selector/alltoall/algorithms.hpp"
#include "selector/alltoall/blocks.hpp"
#include "selector/byte_view.hpp"

namespace collsel::alltoall {

int all_at_once(const AlltoallCall& call, const AlgoParams&) {
  if (block_bytes(call) == 0) return MPI_SUCCESS;
  const Exchange exchange(call);
  const int n = call.size;
  Requests pending;  // declared after `exchange`: completed before its staging copy is freed
  // Receives first, so that most messages find their receive posted instead of being buffered.
  for (int t = 1; t < n; ++t) {
    if (int e = exchange.irecv((call.rank + t) % n, pending.add()); e != MPI_SUCCESS) return e;
  }
  for (int t = 1; t < n; ++t) {
    if (int e = exchange.isend((call.rank - t + n) % n, pending.add()); e != MPI_SUCCESS) return e;
  }
  if (int e = exchange.keep_own_block(); e != MPI_SUCCESS) return e;
  return pending.wait();
}

}  // namespace collsel::alltoall

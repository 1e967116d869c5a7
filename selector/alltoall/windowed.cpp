// alltoall.windowed: direct exchange's order (exchange t sends to rank+t and receives from
// rank-t), with at most k exchanges (a receive and a send) in flight. A sliding window, not
// batches: when the oldest exchange t completes, exchange t+k starts, so the window stays full
// instead of draining to each batch's slowest exchange. k = params.window; k <= 0 or k > n-1
// means n-1 (every exchange in flight at once, as in alltoall.all_at_once).
// Cost: models/alltoall/contention.hpp windowed(c, n, m, k), ceil((n-1)/k) alpha +
// (n-1) m beta(rho(k)); the model's latency term counts batches, a bound on the sliding window's.
// Works for any P, count (0 included), datatypes (typed end to end), and MPI_IN_PLACE (blocks.hpp).
#include <cstddef>
#include <vector>

#include "selector/alltoall/algorithms.hpp"
#include "selector/alltoall/blocks.hpp"
#include "selector/byte_view.hpp"

namespace collsel::alltoall {

int windowed(const AlltoallCall& call, const AlgoParams& params) {
  if (block_bytes(call) == 0) return MPI_SUCCESS;
  const Exchange exchange(call);
  if (int e = exchange.keep_own_block(); e != MPI_SUCCESS) return e;
  const int n = call.size;
  if (n == 1) return MPI_SUCCESS;
  const int k = params.window <= 0 || params.window > n - 1 ? n - 1 : params.window;
  // Slot (t-1) mod k holds exchange t; waiting on it before reuse retires exchange t-k, the
  // oldest in flight. Declared after `exchange`, so completed before its staging copy is freed.
  std::vector<Requests> slots(static_cast<std::size_t>(k));
  for (int t = 1; t < n; ++t) {
    Requests& slot = slots[static_cast<std::size_t>((t - 1) % k)];
    if (int e = slot.wait(); e != MPI_SUCCESS) return e;
    if (int e = exchange.irecv((call.rank - t + n) % n, slot.add()); e != MPI_SUCCESS) return e;
    if (int e = exchange.isend((call.rank + t) % n, slot.add()); e != MPI_SUCCESS) return e;
  }
  // The remaining exchanges, oldest first.
  for (int t = n - k; t < n; ++t) {
    if (int e = slots[static_cast<std::size_t>((t - 1) % k)].wait(); e != MPI_SUCCESS) return e;
  }
  return MPI_SUCCESS;
}

}  // namespace collsel::alltoall

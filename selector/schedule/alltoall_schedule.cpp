// Mirrors selector/alltoall/*.cpp. Messages are emitted round by round (exchange by exchange),
// rank by rank, and only ever depend on earlier rounds, so the order is topological.
//   direct_exchange: round t = 1..n-1, rank r sends its block to r+t and receives from r-t with
//                    one PMPI_Sendrecv; round t starts when round t-1's send and receive have
//                    both completed.
//   pairwise:        the same rounds; partner r XOR t on both sides when n is a power of two.
//   all_at_once:     every send (to r-t) posted at once, one Waitall: no dependencies.
//   windowed(k):     exchange t (send to r+t, receive from r-t) reuses the slot of exchange
//                    t-k and waits for it first: it follows exchange t-k's send and receive.
//   bruck:           round j (d = 2^j) sends bruck_round_blocks(n, j) packed blocks to r+d and
//                    receives as many from r-d (PMPI_Sendrecv); round j follows round j-1.
//   mesh2d:          phase 1, every message free to go: rank (i, k) sends rows blocks to each
//                    other rank of its row, to column k-t in round t; phase 2: cols blocks to
//                    each other rank of its column, to row i-t in round t, each after all of the
//                    rank's phase-1 sends and receives (one Waitall ends phase 1).
#include "selector/schedule/alltoall_schedule.hpp"

#include <vector>

#include "models/alltoall/contention.hpp"
#include "models/plogp/bcast.hpp"

namespace collsel::schedule {
namespace {

using models::contention::Message;
using models::contention::Schedule;

int mod(int a, int n) { return ((a % n) + n) % n; }

// Rounds 1..rounds of n messages each, message (r, t) at index (t-1) n + r, sent by r to
// to(r, t) with bytes(t), after its own message and the message it received in round
// t - lag (when t > lag), whose sender is from(r, t - lag).
template <class To, class From, class Bytes>
Schedule rounds(const CallShape& call, int count, int lag, To to, From from, Bytes bytes) {
  const int n = call.comm_size;
  Schedule schedule{.ranks = n, .messages = {}};
  if (call.moves_nothing()) return schedule;
  schedule.messages.reserve(static_cast<std::size_t>(count) * static_cast<std::size_t>(n));
  const auto index = [n](int r, int t) { return (t - 1) * n + r; };
  for (int t = 1; t <= count; ++t) {
    for (int r = 0; r < n; ++r) {
      Message message{.src = r, .dst = to(r, t), .bytes = bytes(t), .after = {}};
      if (t > lag) message.after = {index(r, t - lag), index(from(r, t - lag), t - lag)};
      schedule.messages.push_back(std::move(message));
    }
  }
  return schedule;
}

}  // namespace

Schedule alltoall_direct_exchange(const CallShape& call, const AlgoParams&) {
  const int n = call.comm_size;
  return rounds(
      call, n - 1, 1, [n](int r, int t) { return mod(r + t, n); },
      [n](int r, int t) { return mod(r - t, n); }, [&call](int) { return call.bytes; });
}

Schedule alltoall_pairwise(const CallShape& call, const AlgoParams& params) {
  const int n = call.comm_size;
  if ((n & (n - 1)) != 0) return alltoall_direct_exchange(call, params);
  const auto partner = [](int r, int t) { return r ^ t; };
  return rounds(call, n - 1, 1, partner, partner, [&call](int) { return call.bytes; });
}

Schedule alltoall_all_at_once(const CallShape& call, const AlgoParams&) {
  // windowed's messages at k = n-1, in the libraries' order: round t sends to r-t.
  const int n = call.comm_size;
  return rounds(
      call, n - 1, n - 1, [n](int r, int t) { return mod(r - t, n); },
      [n](int r, int t) { return mod(r + t, n); }, [&call](int) { return call.bytes; });
}

Schedule alltoall_windowed(const CallShape& call, const AlgoParams& params) {
  const int n = call.comm_size;
  const int k = params.window <= 0 || params.window > n - 1 ? n - 1 : params.window;
  return rounds(
      call, n - 1, k, [n](int r, int t) { return mod(r + t, n); },
      [n](int r, int t) { return mod(r - t, n); }, [&call](int) { return call.bytes; });
}

Schedule alltoall_bruck(const CallShape& call, const AlgoParams&) {
  const int n = call.comm_size;
  const int count = models::plogp::ceil_log2(static_cast<std::uint64_t>(n));
  // Round t here is Bruck's round j = t-1, distance d = 2^j.
  return rounds(
      call, count, 1, [n](int r, int t) { return mod(r + (1 << (t - 1)), n); },
      [n](int r, int t) { return mod(r - (1 << (t - 1)), n); },
      [&call, n](int t) { return models::alltoall::bruck_round_blocks(n, t - 1) * call.bytes; });
}

Schedule alltoall_mesh2d(const CallShape& call, const AlgoParams&) {
  const int n = call.comm_size;
  Schedule schedule{.ranks = n, .messages = {}};
  if (call.moves_nothing()) return schedule;
  const auto [rows, cols] = models::alltoall::mesh_grid(n);
  schedule.messages.reserve(static_cast<std::size_t>(alltoall_mesh2d_size(call, {})));
  // Phase 1: message (r, t) at index (t - 1) n + r; rank r's receives are those whose dst is r.
  std::vector<std::vector<int>> phase1(static_cast<std::size_t>(n));
  for (int t = 1; t < cols; ++t) {
    for (int r = 0; r < n; ++r) {
      const int to = (r / cols) * cols + mod(r % cols - t, cols);
      const int index = static_cast<int>(schedule.messages.size());
      phase1[static_cast<std::size_t>(r)].push_back(index);
      phase1[static_cast<std::size_t>(to)].push_back(index);
      schedule.messages.push_back(
          {.src = r, .dst = to, .bytes = static_cast<std::uint64_t>(rows) * call.bytes,
           .after = {}});
    }
  }
  for (int t = 1; t < rows; ++t) {
    for (int r = 0; r < n; ++r) {
      const int to = mod(r / cols - t, rows) * cols + r % cols;
      schedule.messages.push_back({.src = r, .dst = to,
                                   .bytes = static_cast<std::uint64_t>(cols) * call.bytes,
                                   .after = phase1[static_cast<std::size_t>(r)]});
    }
  }
  return schedule;
}

std::uint64_t alltoall_exchange_size(const CallShape& call, const AlgoParams&) {
  if (call.moves_nothing()) return 0;
  const auto n = static_cast<std::uint64_t>(call.comm_size);
  return n * (n - 1);
}

std::uint64_t alltoall_bruck_size(const CallShape& call, const AlgoParams&) {
  if (call.moves_nothing()) return 0;
  return static_cast<std::uint64_t>(call.comm_size) *
         static_cast<std::uint64_t>(
             models::plogp::ceil_log2(static_cast<std::uint64_t>(call.comm_size)));
}

std::uint64_t alltoall_mesh2d_size(const CallShape& call, const AlgoParams&) {
  if (call.moves_nothing()) return 0;
  const auto [rows, cols] = models::alltoall::mesh_grid(call.comm_size);
  return static_cast<std::uint64_t>(call.comm_size) *
         static_cast<std::uint64_t>(rows - 1 + cols - 1);
}

}  // namespace collsel::schedule

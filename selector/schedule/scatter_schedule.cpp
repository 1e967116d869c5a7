// Mirrors selector/scatter/{flat,chain,binomial}.cpp, in virtual ranks (vrank 0 is the root):
//   flat:     the root posts all P-1 block sends at once (Isend, one Waitall): no dependencies,
//             so they share the root's link as in the real code.
//   chain:    vrank v receives (P-v) blocks from v-1 and forwards the (P-v-1) that are not its
//             own to v+1 once received.
//   binomial: vrank v receives its subtree's blocks from its parent, then sends each child its
//             subtree's blocks with blocking sends, one child after the other, largest first.
// Every tree here has parent < child, so emitting by increasing vrank is topological.
#include "selector/schedule/scatter_schedule.hpp"

#include <vector>

#include "selector/schedule/tree.hpp"

namespace collsel::schedule {
namespace {

using models::contention::Message;
using models::contention::Schedule;

int emit(Schedule& schedule, const CallShape& call, int from, int to, std::uint64_t blocks,
         std::vector<int> after) {
  schedule.messages.push_back({.src = to_rank(from, call.root, call.comm_size),
                               .dst = to_rank(to, call.root, call.comm_size),
                               .bytes = blocks * call.bytes,
                               .after = std::move(after)});
  return static_cast<int>(schedule.messages.size()) - 1;
}

}  // namespace

Schedule scatter_flat(const CallShape& call, const AlgoParams&) {
  Schedule schedule{.ranks = call.comm_size, .messages = {}};
  if (call.moves_nothing()) return schedule;
  for (int v = 1; v < call.comm_size; ++v) emit(schedule, call, 0, v, 1, {});
  return schedule;
}

Schedule scatter_chain(const CallShape& call, const AlgoParams&) {
  Schedule schedule{.ranks = call.comm_size, .messages = {}};
  if (call.moves_nothing()) return schedule;
  const int size = call.comm_size;
  int received = emit(schedule, call, 0, 1, static_cast<std::uint64_t>(size - 1), {});
  for (int v = 1; v + 1 < size; ++v) {
    received = emit(schedule, call, v, v + 1, static_cast<std::uint64_t>(size - v - 1), {received});
  }
  return schedule;
}

Schedule scatter_binomial(const CallShape& call, const AlgoParams&) {
  Schedule schedule{.ranks = call.comm_size, .messages = {}};
  if (call.moves_nothing()) return schedule;
  const int size = call.comm_size;
  std::vector<int> received(static_cast<std::size_t>(size), -1);  // per vrank, from its parent
  for (int v = 0; v < size; ++v) {
    // PMPI_Send completes before the next child's send starts: each depends on the previous,
    // the first on the blocks received.
    int previous = received[static_cast<std::size_t>(v)];
    for (int child : tree_node(TreeShape::binomial, v, size).children) {
      const auto blocks = static_cast<std::uint64_t>(binomial_subtree_size(child, size));
      std::vector<int> after;
      if (previous >= 0) after.push_back(previous);
      previous = emit(schedule, call, v, child, blocks, std::move(after));
      received[static_cast<std::size_t>(child)] = previous;
    }
  }
  return schedule;
}

}  // namespace collsel::schedule

// The communication schedules of the bcast.* algorithms (selector/bcast/), for the contention
// simulator (models/contention/schedule.hpp): every message bcast::tree_engine sends, between
// ranks, with what its sender must have received or completed before posting it. Pure: no MPI.
#pragma once

#include <cstdint>

#include "models/contention/schedule.hpp"
#include "selector/algo_params.hpp"
#include "selector/collective.hpp"
#include "selector/schedule/tree.hpp"

namespace collsel::schedule {

// The options of bcast::EngineOptions, restated here because that header pulls in MPI.
struct TreeBroadcast {
  TreeShape shape = TreeShape::binomial;
  std::uint64_t segment_bytes = 0;  // 0 or >= message: one segment
  bool rendezvous = false;          // zero-byte request and ready before every data message
  bool split = false;               // halves down the two subtrees, then swapped (SplitHalves)
  // bcast::EngineOptions::receives_ahead: above 2, every later segment finds its receive posted
  // (g_p, not g_2), and a node's sends are not serialized but bounded by the receives its child
  // posted: segment i goes after the child received segment i - receives_ahead.
  int receives_ahead = 2;
};

// The schedule of bcast::tree_engine with `options` for call.comm_size ranks, call.bytes and
// call.root. Empty for P <= 1 or 0 bytes, as the engine sends nothing then.
models::contention::Schedule tree_broadcast(const CallShape& call, const TreeBroadcast& options);

// One per registered algorithm, with the registry's ScheduleFn signature; only the *_segmented
// ones read params.segment_bytes, as their run functions do.
models::contention::Schedule bcast_flat(const CallShape& call, const AlgoParams& params);
models::contention::Schedule bcast_flat_rendezvous(const CallShape& call, const AlgoParams& params);
models::contention::Schedule bcast_flat_segmented(const CallShape& call, const AlgoParams& params);
models::contention::Schedule bcast_chain(const CallShape& call, const AlgoParams& params);
models::contention::Schedule bcast_chain_rendezvous(const CallShape& call,
                                                    const AlgoParams& params);
models::contention::Schedule bcast_chain_segmented(const CallShape& call, const AlgoParams& params);
models::contention::Schedule bcast_chain_preposted(const CallShape& call, const AlgoParams& params);
models::contention::Schedule bcast_binary(const CallShape& call, const AlgoParams& params);
models::contention::Schedule bcast_binomial(const CallShape& call, const AlgoParams& params);
models::contention::Schedule bcast_binomial_rendezvous(const CallShape& call,
                                                       const AlgoParams& params);
models::contention::Schedule bcast_binomial_segmented(const CallShape& call,
                                                      const AlgoParams& params);
// Mirrors selector/bcast/scatter_allgather.cpp: the binomial scatter of the chunks (blocking
// sends, one child after the other, as scatter_binomial), then the ring steps: vrank v's step s
// follows its own step s-1 (or, at s = 0, its scatter sends) and what it received at step s-1
// (or, at s = 0, its chunks from the scatter).
models::contention::Schedule bcast_scatter_allgather(const CallShape& call,
                                                     const AlgoParams& params);
// Mirrors selector/bcast/scatter_doubling_allgather.cpp: the same scatter, then the doubling
// rounds (chunks.hpp doubling_round), a run that wraps past the last chunk as two messages; a
// round's messages wait for everything their sender sent and received in the round before.
models::contention::Schedule bcast_scatter_doubling_allgather(const CallShape& call,
                                                              const AlgoParams& params);
// Its message count: P - 1 scatter messages, then P - 1 a round at a power of two (more where a
// run wraps): 11,253 at P = 1024.
std::uint64_t bcast_scatter_doubling_allgather_size(const CallShape& call,
                                                    const AlgoParams& params);
// The segmented flat, chain and binomial trees' message count: every non-root vrank receives
// every segment once, (P - 1) x segments. At P = 1024 a 1 MiB message in 8 KiB segments is
// 130,944 messages, past the repetition interval's cap: decide() need not build it to refuse it.
std::uint64_t bcast_segmented_tree_size(const CallShape& call, const AlgoParams& params);
// Mirrors bcast::split_binary: tree_broadcast on level_binary, split, with params.segment_bytes.
models::contention::Schedule bcast_split_binary(const CallShape& call, const AlgoParams& params);
// Its message count: every non-root vrank's half in segments, plus P - 1 swaps. At P = 1024 a
// 1 MiB message in 1 KiB segments is 524,799 messages, which decide() need not build to refuse.
std::uint64_t bcast_split_binary_size(const CallShape& call, const AlgoParams& params);
// Its message count, (P-1) + (P-1)^2 (0 when nothing is sent): past decide()'s cap from P = 65.
std::uint64_t bcast_scatter_allgather_size(const CallShape& call, const AlgoParams& params);

}  // namespace collsel::schedule

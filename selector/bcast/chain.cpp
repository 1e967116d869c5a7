// bcast.chain, bcast.chain_rendezvous, bcast.chain_segmented and bcast.chain_preposted: a
// pipeline through the ranks in (virtual) rank order.
// Schedule: v -> v+1; segmented, rank v forwards segment i while receiving i+1; preposted, while
// up to models::plogp::kChainPrepostedReceives segments' receives are posted.
// Cost (seed 001 Table 1): (P-1) (g(m) + L); rendezvous: (P-1) (g(m) + 2 g(1) + 3 L); segmented:
// (P-1) (g(s) + L) + g(s) (k-1), g read per docs/MODELS.md ("Two gaps").
// Works for any P, root, count (0 included) and datatype: see tree_engine.cpp and byte_view.hpp.
#include "models/plogp/bcast.hpp"
#include "selector/bcast/algorithms.hpp"
#include "selector/bcast/tree_engine.hpp"

namespace collsel::bcast {

int chain(const BcastCall& call, const AlgoParams&) {
  return tree_engine(call, {.shape = schedule::TreeShape::chain});
}

int chain_rendezvous(const BcastCall& call, const AlgoParams&) {
  return tree_engine(call, {.shape = schedule::TreeShape::chain, .rendezvous = true});
}

int chain_segmented(const BcastCall& call, const AlgoParams& params) {
  return tree_engine(call,
                     {.shape = schedule::TreeShape::chain, .segment_bytes = params.segment_bytes});
}

// SMPI's NTSL Bcast (and MPICH's pipelined tree with recv_pre_posted) posts every segment's
// receive at once. Where a transfer starts only once its receive is posted (SMPI, any rendezvous
// protocol), the engine's two receives ahead hold a sender back: a chain in 8 KiB segments took
// 179.8 ms for 16 MiB on simulated gige at P = 16 where NTSL took 127.6 ms (docs/BENCHMARKS.md,
// "At scale").
int chain_preposted(const BcastCall& call, const AlgoParams& params) {
  return tree_engine(call, {.shape = schedule::TreeShape::chain,
                            .segment_bytes = params.segment_bytes,
                            .receives_ahead = models::plogp::kChainPrepostedReceives});
}

}  // namespace collsel::bcast

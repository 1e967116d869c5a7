// bcast.chain, bcast.chain_rendezvous and bcast.chain_segmented: a pipeline through the ranks in (virtual) rank order.
// Schedule: v -> v+1; segmented, rank v forwards segment i while receiving i+1.
// Cost (seed 001 Table 1): (P-1) (g(m) + L); rendezvous: (P-1) (g(m) + 2 g(1) + 3 L); segmented: (P-1) (g(s) + L) + g(s) (k-1).
// Works for any P, root, count (0 included) and datatype: see tree_engine.cpp and byte_view.hpp.
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

}  // namespace collsel::bcast

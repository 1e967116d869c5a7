// bcast.flat, bcast.flat_rendezvous and bcast.flat_segmented: the root sends to every other rank itself.
// Schedule: root -> 1..P-1, one message each (segment-major when segmented).
// Cost (seed 001 Table 1): (P-1) g(m) + L; rendezvous: (P-1) g(m) + 2 g(1) + 3 L; segmented: (P-1) g(s) k + L.
// Works for any P, root, count (0 included) and datatype: see tree_engine.cpp and byte_view.hpp.
#include "selector/bcast/algorithms.hpp"
#include "selector/bcast/tree_engine.hpp"

namespace collsel::bcast {

int flat(const BcastCall& call, const AlgoParams&) {
  return tree_engine(call, {.shape = schedule::TreeShape::flat});
}

int flat_rendezvous(const BcastCall& call, const AlgoParams&) {
  return tree_engine(call, {.shape = schedule::TreeShape::flat, .rendezvous = true});
}

int flat_segmented(const BcastCall& call, const AlgoParams& params) {
  return tree_engine(call,
                     {.shape = schedule::TreeShape::flat, .segment_bytes = params.segment_bytes});
}

}  // namespace collsel::bcast

// bcast.binomial, bcast.binomial_rendezvous and bcast.binomial_segmented: the binomial tree (largest subtree first).
// Schedule: v receives from v - lowbit(v) and sends to v + 2^j for every 2^j < lowbit(v).
// Cost (seed 001 Table 1): floor(log2 P) g(m) + ceil(log2 P) L; rendezvous: floor(log2 P) g(m) + ceil(log2 P) (2 g(1) + 3 L); segmented: floor(log2 P) g(s) k + ceil(log2 P) L.
// Works for any P, root, count (0 included) and datatype: see tree_engine.cpp and byte_view.hpp.
#include "selector/bcast/algorithms.hpp"
#include "selector/bcast/tree_engine.hpp"

namespace collsel::bcast {

int binomial(const BcastCall& call, const AlgoParams&) {
  return tree_engine(call, {.shape = schedule::TreeShape::binomial});
}

int binomial_rendezvous(const BcastCall& call, const AlgoParams&) {
  return tree_engine(call, {.shape = schedule::TreeShape::binomial, .rendezvous = true});
}

int binomial_segmented(const BcastCall& call, const AlgoParams& params) {
  return tree_engine(call,
                     {.shape = schedule::TreeShape::binomial, .segment_bytes = params.segment_bytes});
}

}  // namespace collsel::bcast

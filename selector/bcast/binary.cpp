// bcast.binary: a heap-ordered binary tree, v -> 2v+1, 2v+2 (virtual ranks).
// Cost (seed 001 Table 1): <= ceil(log2 P) (2 g(m) + L); collsel charges the tree's real depth,
// floor(log2 P) (docs/MODELS.md). The Table has no rendezvous or segmented binary flavour.
#include "selector/bcast/algorithms.hpp"
#include "selector/bcast/tree_engine.hpp"

namespace collsel::bcast {

int binary(const BcastCall& call, const AlgoParams&) {
  return tree_engine(call, {.shape = schedule::TreeShape::binary});
}

}  // namespace collsel::bcast

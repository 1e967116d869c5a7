// bcast.split_binary: Open MPI's split binary tree (ompi_coll_base_bcast_intra_split_bintree; the
// Bcast SMPI's Open MPI selector runs from 2 KiB to 362 KiB). The root sends the first half of
// the message, segmented, down vrank 1's subtree of Open MPI's level-order binary tree and the
// second half down vrank 2's; then each rank swaps its half with its twin in the other subtree
// (schedule::SplitHalves). Each node forwards only half the message, so a tree's pipeline moves
// m / 2 per hop, for one swap of m / 2 at the end. At 16 KiB on 256 ranks of simulated fat trees,
// SMPI's Open MPI selector, which runs it there, was 1.11-1.14x faster than the best algorithm
// collsel had (docs/BENCHMARKS.md, "At scale").
// Cost: models::plogp::bcast_split_binary. Works for any P, root, count (0 included) and
// datatype: bytes as in tree_engine.cpp, halved at a byte (schedule::SplitHalves says why).
#include "selector/bcast/algorithms.hpp"
#include "selector/bcast/tree_engine.hpp"

namespace collsel::bcast {

int split_binary(const BcastCall& call, const AlgoParams& params) {
  return tree_engine(call, {.shape = schedule::TreeShape::level_binary,
                            .segment_bytes = params.segment_bytes,
                            .split = true});
}

}  // namespace collsel::bcast

// The one pipelined tree-broadcast engine behind every bcast.* algorithm (STYLE.md 8.2 #8, after
// Open MPI's bcast_intra_generic): a tree shape, a segment size and an optional rendezvous
// handshake. Flat is the tree whose root has P-1 children; unsegmented is one segment.
#pragma once

#include <cstdint>

#include "selector/calls.hpp"
#include "selector/schedule/tree.hpp"

namespace collsel::bcast {

struct EngineOptions {
  schedule::TreeShape shape = schedule::TreeShape::binomial;
  std::uint64_t segment_bytes = 0;  // 0 or >= message: one segment
  bool rendezvous = false;          // request / ready / data for every message (seed 001 Table 1)
  // Segment receives a non-root node keeps posted: 2 is the engine's pipeline (segment i+1 posted
  // as i completes, as Open MPI's bcast_intra_generic does); more, up to every segment, is
  // MPICH's pipelined tree with recv_pre_posted and SMPI's NTSL (bcast.chain_preposted). Not with
  // rendezvous, whose handshake posts each receive in turn.
  int receives_ahead = 2;
  // Open MPI's split binary tree (shape level_binary): the root sends the first half of the
  // message down vrank 1's subtree and the second half down vrank 2's, then every rank swaps its
  // half with its twin in the other subtree (schedule::SplitHalves).
  bool split = false;
};

int tree_engine(const BcastCall& call, const EngineOptions& options);

}  // namespace collsel::bcast

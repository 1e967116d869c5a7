// What the two scatter-allgather broadcasts share (scatter_allgather.cpp, with a ring;
// scatter_doubling_allgather.cpp, with recursive doubling): the binomial scatter of the message's
// P chunks (schedule::Chunks) that gives every vrank its own. Both then run an allgather in which
// nothing is sent to the root, which has every chunk and only reads (broadcast_bytes.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "selector/calls.hpp"
#include "selector/schedule/chunks.hpp"

namespace collsel::bcast {

// The binomial scatter: vrank v receives the chunks of its subtree [v, v + subtree) from its
// parent, then sends each child, largest subtree first, the chunks of the child's subtree.
// Sends and receives `length` bytes of chunks as int counts: the registry's applicability check
// (the message fits one int count) bounds them.
int scatter_chunks(const BcastCall& call, std::byte* bytes, const schedule::Chunks& chunks);

}  // namespace collsel::bcast

// Byte-level helpers shared by the forwarding scatters (chain, binomial): the root's blocks laid
// out in virtual-rank order, and a rank's own block delivered into its receive arguments.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "flavour/flavour.hpp"
#include "selector/calls.hpp"

namespace collsel::scatter {

// One block's size in bytes; rank-invariant (type-signature rule).
std::uint64_t block_bytes(const ScatterCall& call);

// At the root: the blocks of vranks [first_vrank, P) as contiguous bytes, vrank order. Points
// into the user's send buffer when that is already the layout (root 0, contiguous type),
// otherwise into a staged copy.
class RootBlocks {
 public:
  RootBlocks(const ScatterCall& call, int first_vrank, int& error);
  const std::byte* block(int vrank) const {
    return data_ + static_cast<std::uint64_t>(vrank - first_) * block_;
  }

 private:
  flavour::Scratch staged_;
  const std::byte* data_ = nullptr;
  std::uint64_t block_ = 0;
  int first_ = 0;
};

// Copies the root's own block into its receive buffer (nothing with MPI_IN_PLACE).
int root_keeps_own_block(const ScatterCall& call);

// Delivers `bytes` (one block, packed form) into the call's receive arguments.
int deliver_own_block(const ScatterCall& call, const std::byte* bytes);

}  // namespace collsel::scatter

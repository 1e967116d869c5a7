#include "selector/scatter/blocks.hpp"

#include <algorithm>

#include "selector/byte_view.hpp"
#include "selector/schedule/tree.hpp"

namespace collsel::scatter {
namespace {

const std::byte* send_block_address(const ScatterCall& call, int rank) {
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_get_extent(call.sendtype, &lb, &extent);
  return static_cast<const std::byte*>(call.sendbuf) +
         static_cast<MPI_Aint>(rank) * call.sendcount * extent;
}

}  // namespace

std::uint64_t block_bytes(const ScatterCall& call) {
  return call.rank == call.root ? type_bytes(call.sendtype, call.sendcount)
                                : type_bytes(call.recvtype, call.recvcount);
}

RootBlocks::RootBlocks(const ScatterCall& call, int first_vrank, int& error)
    : block_(block_bytes(call)), first_(first_vrank) {
  error = MPI_SUCCESS;
  const int blocks = call.size - first_vrank;
  if (blocks <= 0 || block_ == 0) return;
  // With root 0, vrank order is rank order: the user's buffer already is the layout we need.
  if (call.root == 0 && is_contiguous(call.sendtype, call.sendcount * call.size)) {
    data_ = contiguous_start(send_block_address(call, first_vrank), call.sendtype);
    return;
  }
  staged_ = flavour::Scratch(static_cast<std::size_t>(blocks) * block_);
  for (int v = first_vrank; v < call.size; ++v) {
    const int rank = schedule::to_rank(v, call.root, call.size);
    const SendBytes bytes(send_block_address(call, rank), call.sendcount, call.sendtype, call.comm,
                          error);
    if (error != MPI_SUCCESS) return;
    std::copy_n(bytes.data(), block_, staged_.data() + static_cast<std::size_t>(v - first_vrank) * block_);
  }
  data_ = staged_.data();
}

int root_keeps_own_block(const ScatterCall& call) {
  if (call.recvbuf == MPI_IN_PLACE) return MPI_SUCCESS;
  return local_copy(send_block_address(call, call.root), call.sendcount, call.sendtype,
                    call.recvbuf, call.recvcount, call.recvtype, call.comm);
}

int deliver_own_block(const ScatterCall& call, const std::byte* bytes) {
  RecvBytes own(call.recvbuf, call.recvcount, call.recvtype, call.comm);
  std::copy_n(bytes, own.size(), own.data());
  return own.finish();
}

}  // namespace collsel::scatter

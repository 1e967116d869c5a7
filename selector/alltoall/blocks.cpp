#include "selector/alltoall/blocks.hpp"

#include <algorithm>
#include <cstdint>

#include "selector/byte_view.hpp"

namespace collsel::alltoall {
namespace {

MPI_Aint extent_of(MPI_Datatype type) {
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_get_extent(type, &lb, &extent);
  return extent;
}

std::byte* block_address(const void* buffer, int count, MPI_Datatype type, int index) {
  // MPI hands user buffers over as void*; the send side's const is restored by the callers.
  return static_cast<std::byte*>(const_cast<void*>(buffer)) +
         static_cast<MPI_Aint>(index) * count * extent_of(type);
}

}  // namespace

std::uint64_t block_bytes(const AlltoallCall& call) {
  const Outgoing out = outgoing(call);
  return type_bytes(out.type, out.count);
}

Outgoing outgoing(const AlltoallCall& call) {
  if (call.sendbuf == MPI_IN_PLACE) return {call.recvbuf, call.recvcount, call.recvtype};
  return {call.sendbuf, call.sendcount, call.sendtype};
}

int pack_block(const void* buffer, int count, MPI_Datatype type, int index, std::byte* out,
               MPI_Comm comm) {
  int error = MPI_SUCCESS;
  const SendBytes bytes(block_address(buffer, count, type, index), count, type, comm, error);
  if (error != MPI_SUCCESS) return error;
  std::copy_n(bytes.data(), bytes.size(), out);
  return MPI_SUCCESS;
}

int unpack_block(const std::byte* in, void* buffer, int count, MPI_Datatype type, int index,
                 MPI_Comm comm) {
  RecvBytes bytes(block_address(buffer, count, type, index), count, type, comm);
  std::copy_n(in, bytes.size(), bytes.data());
  return bytes.finish();
}

Exchange::Exchange(const AlltoallCall& call)
    : call_(call),
      out_(outgoing(call)),
      out_extent_(extent_of(out_.type)),
      recv_extent_(extent_of(call.recvtype)) {
  if (!in_place()) return;
  MPI_Aint true_lb = 0, true_extent = 0;
  PMPI_Type_get_true_extent(call.recvtype, &true_lb, &true_extent);
  const MPI_Aint last = (static_cast<MPI_Aint>(call.size) * call.recvcount - 1) * recv_extent_;
  staged_lo_ = true_lb + std::min<MPI_Aint>(0, last);
  const MPI_Aint hi = true_lb + true_extent + std::max<MPI_Aint>(0, last);
  staged_ = flavour::Scratch(static_cast<std::size_t>(hi - staged_lo_));
  std::copy_n(static_cast<const std::byte*>(call.recvbuf) + staged_lo_, staged_.size(),
              staged_.data());
}

bool Exchange::in_place() const { return call_.sendbuf == MPI_IN_PLACE; }

const void* Exchange::send_block(int peer) const {
  const MPI_Aint offset = static_cast<MPI_Aint>(peer) * out_.count * out_extent_;
  if (!in_place()) return static_cast<const std::byte*>(out_.buffer) + offset;
  // The copy stands in for recvbuf: recvbuf + x is staged_ + (x - staged_lo_). As in MPICH's
  // temporaries (tmp_buf - true_lb), the block's start may lie before the copy's first byte;
  // MPI only touches the type map's bytes, which are inside it. Integer arithmetic, because a
  // pointer outside the vector would be undefined.
  return reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(staged_.data()) +
                                       static_cast<std::uintptr_t>(offset - staged_lo_));
}

void* Exchange::recv_block(int peer) const {
  return block_address(call_.recvbuf, call_.recvcount, call_.recvtype, peer);
}

int Exchange::keep_own_block() const {
  if (in_place()) return MPI_SUCCESS;
  return local_copy(send_block(call_.rank), out_.count, out_.type, recv_block(call_.rank),
                    call_.recvcount, call_.recvtype, call_.comm);
}

int Exchange::isend(int peer, MPI_Request* request) const {
  return PMPI_Isend(send_block(peer), out_.count, out_.type, peer, data_tag(call_), call_.comm, request);
}

int Exchange::irecv(int peer, MPI_Request* request) const {
  return PMPI_Irecv(recv_block(peer), call_.recvcount, call_.recvtype, peer, data_tag(call_), call_.comm,
                    request);
}

int Exchange::sendrecv(int to, int from) const {
  return PMPI_Sendrecv(send_block(to), out_.count, out_.type, to, data_tag(call_), recv_block(from),
                       call_.recvcount, call_.recvtype, from, data_tag(call_), call_.comm,
                       MPI_STATUS_IGNORE);
}

}  // namespace collsel::alltoall

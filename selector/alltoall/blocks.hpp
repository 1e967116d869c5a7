// Block-level helpers shared by the All-to-All schedules. Block i of a buffer of `count`-element
// blocks starts at buffer + i * count * extent(type), on both the send and the receive side.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "flavour/flavour.hpp"
#include "selector/calls.hpp"

namespace collsel::alltoall {

// One block's bytes; rank-invariant (type-signature rule, and MPI_IN_PLACE is all ranks or none).
// 0 means there is nothing to do: every schedule returns at once, touching nothing.
std::uint64_t block_bytes(const AlltoallCall& call);

// The blocks this rank sends: the send buffer's, or with MPI_IN_PLACE the receive buffer's.
struct Outgoing {
  const void* buffer;
  int count;
  MPI_Datatype type;
};
Outgoing outgoing(const AlltoallCall& call);

// Block `index` of (buffer, count, type) as packed bytes at `out` / from `in` (byte_view's
// SendBytes / RecvBytes: a copy when contiguous, PMPI_Pack / PMPI_Unpack otherwise).
int pack_block(const void* buffer, int count, MPI_Datatype type, int index, std::byte* out,
               MPI_Comm comm);
int unpack_block(const std::byte* in, void* buffer, int count, MPI_Datatype type, int index,
                 MPI_Comm comm);

// The typed exchange of the direct schedules (direct exchange, pairwise, all at once, windowed):
// a block goes from the sender's buffer to the receiver's with the users' own datatypes, so MPI
// matches them exactly as in the native call. With MPI_IN_PLACE a rank receives block i-t before
// it has sent it (round n-t), so the constructor first copies the receive buffer's whole span
// (holes included, one memcpy) and the blocks are sent, still typed, from that copy. Not packed
// and sent as MPI_PACKED, which the standard allows: MPICH 4.0.2 aborts ("Message truncated")
// when a packed or MPI_BYTE message of 635 or more {char, double, int} structs is received with
// the struct type, which is also why its own in-place Alltoall fails there (tests/selector/
// differential.cpp, Family).
class Exchange {
 public:
  explicit Exchange(const AlltoallCall& call);
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  // This rank's own block, copied locally (already in place with MPI_IN_PLACE).
  int keep_own_block() const;
  int isend(int peer, MPI_Request* request) const;
  int irecv(int peer, MPI_Request* request) const;
  int sendrecv(int to, int from) const;

 private:
  bool in_place() const;
  const void* send_block(int peer) const;
  void* recv_block(int peer) const;

  AlltoallCall call_;
  Outgoing out_;
  MPI_Aint out_extent_ = 0;
  MPI_Aint recv_extent_ = 0;
  flavour::Scratch staged_;  // MPI_IN_PLACE only: the receive buffer's span, as it came
  MPI_Aint staged_lo_ = 0;         // the span's first byte, relative to recvbuf
};

}  // namespace collsel::alltoall

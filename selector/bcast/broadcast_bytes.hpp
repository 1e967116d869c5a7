// Every Bcast algorithm moves the message as one run of bytes (byte_view.hpp): the root's, packed
// when its datatype is not contiguous, and every other rank's, received into its buffer or a
// temporary and unpacked at the end. broadcast_bytes() is that frame, shared by the tree engine
// and the scatter-allgather broadcasts.
#pragma once

#include <cstddef>
#include <cstdint>

#include "selector/byte_view.hpp"
#include "selector/calls.hpp"

namespace collsel::bcast {

// Runs `move(bytes, total)` (returning a PMPI error code) on the call's bytes. The root's bytes
// are the user's or their packed copy, so `move` must only read them there: at the root it is
// handed them through a cast so that every rank runs the same code. Nothing is sent for P <= 1,
// count 0 or a zero-size type.
template <class Move>
int broadcast_bytes(const BcastCall& call, Move move) {
  if (call.size <= 1 || call.count == 0) return MPI_SUCCESS;
  if (call.rank == call.root) {
    int error = MPI_SUCCESS;
    const SendBytes bytes(call.buffer, call.count, call.type, call.comm, error);
    if (error != MPI_SUCCESS) return error;
    if (bytes.size() == 0) return MPI_SUCCESS;  // count > 0 of a zero-size type
    return move(const_cast<std::byte*>(bytes.data()), bytes.size());
  }
  RecvBytes bytes(call.buffer, call.count, call.type, call.comm);
  if (bytes.size() == 0) return MPI_SUCCESS;
  if (int e = move(bytes.data(), bytes.size()); e != MPI_SUCCESS) return e;
  return bytes.finish();
}

}  // namespace collsel::bcast

// Algorithms move plain bytes. A (buffer, count, datatype) triple is seen as a contiguous byte
// range: in place when the datatype is contiguous in memory and in type-map order, otherwise
// through a packed temporary (PMPI_Pack / PMPI_Unpack), as MPICH does with MPIR_Localcopy into a
// tmp_buf (STYLE.md 8.2 #7). Segmenting bytes therefore never depends on a rank's local datatype,
// so ranks using different datatypes of the same signature cut messages identically.
//
// Assumption: a homogeneous cluster, where the packed form is the type map's bytes in order (true
// for MPICH, whose MPI_Pack is a copy). docs/ARCHITECTURE.md, "Data path".
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "flavour/flavour.hpp"

namespace collsel {

// True when `count` elements of `type` occupy [true_lb, true_lb + count*size) in type-map order.
// Conservative: only predefined types without holes and MPI_Type_contiguous/dup chains of them.
bool is_contiguous(MPI_Datatype type, int count);

// Bytes of `count` elements of `type`: count x MPI_Type_size.
std::uint64_t type_bytes(MPI_Datatype type, int count);

// Pointer to the first byte of a contiguous (buffer, type): buffer + true_lb.
std::byte* contiguous_start(const void* buffer, MPI_Datatype type);

// Read-only bytes of data this rank sends.
class SendBytes {
 public:
  // Packs when needed. `error` receives the PMPI error code (MPI_SUCCESS normally).
  SendBytes(const void* buffer, int count, MPI_Datatype type, MPI_Comm comm, int& error);
  const std::byte* data() const { return data_; }
  std::uint64_t size() const { return size_; }

 private:
  flavour::Scratch packed_;
  const std::byte* data_ = nullptr;
  std::uint64_t size_ = 0;
};

// Writable bytes that end up in (buffer, count, type): receive into data(), then call finish().
class RecvBytes {
 public:
  RecvBytes(void* buffer, int count, MPI_Datatype type, MPI_Comm comm);
  std::byte* data() { return data_; }
  std::uint64_t size() const { return size_; }
  // Unpacks into the user's buffer when a temporary was used. Returns a PMPI error code.
  int finish();

 private:
  void* buffer_;
  int count_;
  MPI_Datatype type_;
  MPI_Comm comm_;
  flavour::Scratch packed_;
  std::byte* data_ = nullptr;
  std::uint64_t size_ = 0;
};

// Copies `count` elements of `from` into `to` (the typed local copy of Scatter's own block).
int local_copy(const void* src, int src_count, MPI_Datatype src_type, void* dst, int dst_count,
               MPI_Datatype dst_type, MPI_Comm comm);

// Outstanding requests of one algorithm step. The destructor completes whatever is still pending,
// so no buffer is released while MPI may still read or write it, even on an early error return.
class Requests {
 public:
  Requests() = default;
  Requests(const Requests&) = delete;
  Requests& operator=(const Requests&) = delete;
  ~Requests();

  MPI_Request* add() { return &pending_.emplace_back(MPI_REQUEST_NULL); }
  // PMPI_Waitall on everything added so far; returns its error code.
  int wait();

 private:
  std::vector<MPI_Request> pending_;
};

}  // namespace collsel

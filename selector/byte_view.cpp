#include "selector/byte_view.hpp"

#include <algorithm>
#include <climits>

namespace collsel {
namespace {

// Predefined types: a type-map of one basic element (or a pair type). Pair types such as
// MPI_DOUBLE_INT have padding, which size != extent exposes.
bool named_contiguous(MPI_Datatype type) {
  MPI_Aint lb = 0, extent = 0;
  int size = 0;
  PMPI_Type_get_extent(type, &lb, &extent);
  PMPI_Type_size(type, &size);
  return lb == 0 && extent == size;
}

// A derived type built only by MPI_Type_contiguous / MPI_Type_dup from a contiguous type keeps
// type-map order == address order. Anything else (vector, struct, resized, ...) may not, even
// when it has no holes (a struct may list fields in decreasing address order), so it is packed.
bool derived_contiguous(MPI_Datatype type) {
  int nints = 0, naddrs = 0, ntypes = 0, combiner = 0;
  PMPI_Type_get_envelope(type, &nints, &naddrs, &ntypes, &combiner);
  if (combiner == MPI_COMBINER_NAMED) return named_contiguous(type);
  if (combiner != MPI_COMBINER_CONTIGUOUS && combiner != MPI_COMBINER_DUP) return false;
  std::vector<int> ints(static_cast<std::size_t>(nints));
  std::vector<MPI_Aint> addrs(static_cast<std::size_t>(naddrs));
  std::vector<MPI_Datatype> types(static_cast<std::size_t>(ntypes));
  PMPI_Type_get_contents(type, nints, naddrs, ntypes, ints.data(), addrs.data(), types.data());
  const MPI_Datatype inner = types.at(0);
  const bool result = derived_contiguous(inner);
  int inner_nints = 0, inner_naddrs = 0, inner_ntypes = 0, inner_combiner = 0;
  PMPI_Type_get_envelope(inner, &inner_nints, &inner_naddrs, &inner_ntypes, &inner_combiner);
  // get_contents hands out new handles for derived types; predefined ones must not be freed.
  MPI_Datatype to_free = inner;
  if (inner_combiner != MPI_COMBINER_NAMED) PMPI_Type_free(&to_free);
  return result;
}

}  // namespace

bool is_contiguous(MPI_Datatype type, int count) {
  if (!derived_contiguous(type)) return false;
  if (count <= 1) return true;
  MPI_Aint lb = 0, extent = 0;
  int size = 0;
  PMPI_Type_get_extent(type, &lb, &extent);
  PMPI_Type_size(type, &size);
  return extent == size;
}

std::uint64_t type_bytes(MPI_Datatype type, int count) {
  if (count <= 0) return 0;
  int size = 0;
  PMPI_Type_size(type, &size);
  return static_cast<std::uint64_t>(size) * static_cast<std::uint64_t>(count);
}

std::byte* contiguous_start(const void* buffer, MPI_Datatype type) {
  MPI_Aint true_lb = 0, true_extent = 0;
  PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
  // MPI hands us user buffers as void*; the const of a send buffer is restored by SendBytes.
  return static_cast<std::byte*>(const_cast<void*>(buffer)) + true_lb;
}

SendBytes::SendBytes(const void* buffer, int count, MPI_Datatype type, MPI_Comm comm, int& error)
    : size_(type_bytes(type, count)) {
  error = MPI_SUCCESS;
  if (size_ == 0) return;
  if (is_contiguous(type, count)) {
    data_ = contiguous_start(buffer, type);
    return;
  }
  packed_ = flavour::Scratch(size_);
  int position = 0;
  error = PMPI_Pack(buffer, count, type, packed_.data(), static_cast<int>(size_), &position, comm);
  data_ = packed_.data();
}

RecvBytes::RecvBytes(void* buffer, int count, MPI_Datatype type, MPI_Comm comm)
    : buffer_(buffer), count_(count), type_(type), comm_(comm), size_(type_bytes(type, count)) {
  if (size_ == 0) return;
  if (is_contiguous(type, count)) {
    data_ = contiguous_start(buffer, type);
    return;
  }
  packed_ = flavour::Scratch(size_);
  data_ = packed_.data();
}

int RecvBytes::finish() {
  if (packed_.empty()) return MPI_SUCCESS;
  int position = 0;
  return PMPI_Unpack(packed_.data(), static_cast<int>(size_), &position, buffer_, count_, type_,
                     comm_);
}

int local_copy(const void* src, int src_count, MPI_Datatype src_type, void* dst, int dst_count,
               MPI_Datatype dst_type, MPI_Comm comm) {
  int error = MPI_SUCCESS;
  const SendBytes from(src, src_count, src_type, comm, error);
  if (error != MPI_SUCCESS) return error;
  RecvBytes to(dst, dst_count, dst_type, comm);
  if (from.size() != to.size()) return MPI_ERR_TRUNCATE;
  if (from.size() > 0) std::copy_n(from.data(), from.size(), to.data());
  return to.finish();
}

Requests::~Requests() {
  if (!pending_.empty()) {
    PMPI_Waitall(static_cast<int>(pending_.size()), pending_.data(), MPI_STATUSES_IGNORE);
  }
}

int Requests::wait() {
  if (pending_.empty()) return MPI_SUCCESS;
  const int error =
      PMPI_Waitall(static_cast<int>(pending_.size()), pending_.data(), MPI_STATUSES_IGNORE);
  pending_.clear();
  return error;
}

}  // namespace collsel

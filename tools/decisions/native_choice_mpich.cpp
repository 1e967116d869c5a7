#include "tools/decisions/native_choice_mpich.hpp"

#include <bit>

namespace collsel::native::mpich {
namespace {

NativeChoice bcast_choice(int comm_size, std::uint64_t bytes) {
  if (comm_size < kBcastMinProcs || bytes <= kBcastShortMsgBytes) {
    return {"MPIR_Bcast_intra_binomial", "bcast.binomial", std::nullopt,
            "the same binomial tree"};
  }
  const bool pow2 = std::has_single_bit(static_cast<unsigned>(comm_size));
  if (pow2 && bytes <= kBcastLongMsgBytes) {
    return {"MPIR_Bcast_intra_scatter_recursive_doubling_allgather",
            "bcast.scatter_doubling_allgather", std::nullopt,
            "the same scatter and recursive doubling, less the chunks MPICH sends the root"};
  }
  return {"MPIR_Bcast_intra_scatter_ring_allgather", "bcast.scatter_allgather", std::nullopt,
          "the same scatter and ring, less the ring's closing hop into the root"};
}

NativeChoice alltoall_choice(int comm_size, std::uint64_t bytes) {
  if (comm_size >= kAlltoallMinProcs && bytes <= kAlltoallShortMsgBytes) {
    return {"MPIR_Alltoall_intra_brucks", "alltoall.bruck", std::nullopt,
            "the same Bruck exchange"};
  }
  if (bytes <= kAlltoallMediumMsgBytes) {
    return {"MPIR_Alltoall_intra_scattered", "alltoall.windowed", kAlltoallThrottle,
            comm_size <= kAlltoallThrottle
                ? "every exchange posted at once, as MPICH does up to 32 ranks"
                : "MPICH waits for each batch of 32 exchanges; the stand-in keeps 32 in flight"};
  }
  return {"MPIR_Alltoall_intra_pairwise", "alltoall.pairwise", std::nullopt,
          "the same pairwise exchange"};
}

}  // namespace

NativeChoice choice(Collective coll, int comm_size, std::uint64_t bytes) {
  switch (coll) {
    case Collective::bcast: return bcast_choice(comm_size, bytes);
    case Collective::alltoall: return alltoall_choice(comm_size, bytes);
    case Collective::scatter: break;
  }
  return {"MPIR_Scatter_intra_binomial", "scatter.binomial", std::nullopt,
          "the same binomial tree"};
}

}  // namespace collsel::native::mpich

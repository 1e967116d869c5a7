// PLACEHOLDER: runs the native routine until the real schedule lands.
#include "selector/alltoall/algorithms.hpp"

namespace collsel::alltoall {

int direct_exchange(const AlltoallCall& call, const AlgoParams&) {
  return PMPI_Alltoall(call.sendbuf, call.sendcount, call.sendtype, call.recvbuf, call.recvcount,
                       call.recvtype, call.comm);
}

}  // namespace collsel::alltoall

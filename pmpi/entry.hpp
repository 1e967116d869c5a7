// The collectives' bodies behind the exported C entry points (pmpi/wide_entry.cpp), which take
// the handles as wide integers; each body makes this build's MPI handles of them.
#pragma once

#include <cstdint>

namespace collsel::pmpi {

// An MPI handle as a caller of any MPI passes it: MPICH's are 32-bit integers, Open MPI's
// pointers.
using WideHandle = std::uintptr_t;

int bcast_entry(void* buffer, int count, WideHandle type, int root, WideHandle comm);
int scatter_entry(const void* sendbuf, int sendcount, WideHandle sendtype, void* recvbuf,
                  int recvcount, WideHandle recvtype, int root, WideHandle comm);
int alltoall_entry(const void* sendbuf, int sendcount, WideHandle sendtype, void* recvbuf,
                   int recvcount, WideHandle recvtype, WideHandle comm);

}  // namespace collsel::pmpi

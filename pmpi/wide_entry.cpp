// The exported C entry points of the three collectives, declared without <mpi.h>: their handles
// are wide integers, so that in a program of another MPI (pmpi/foreign_mpi.cpp) the caller's
// handles reach that MPI whole. With this build's types the MPICH shim would take an Open MPI
// program's 64-bit pointer handles as 32-bit integers and pass them on cut. In this build's own
// MPI the bodies (pmpi/entry.cpp) make its handles of them; otherwise the call goes, untouched, to
// the program's MPI (the PMPI_ routine the process resolves first: the program's, since the shim
// defines none).
#include <dlfcn.h>

#include "pmpi/entry.hpp"
#include "pmpi/foreign_mpi.hpp"

namespace {

using collsel::pmpi::WideHandle;
using BcastFn = int(void*, int, WideHandle, int, WideHandle);
using ScatterFn = int(const void*, int, WideHandle, void*, int, WideHandle, int, WideHandle);
using AlltoallFn = int(const void*, int, WideHandle, void*, int, WideHandle, WideHandle);

template <class Fn>
Fn* program_mpi(const char* name) {
  return reinterpret_cast<Fn*>(dlsym(RTLD_DEFAULT, name));
}

}  // namespace

extern "C" {

int MPI_Bcast(void* buffer, int count, WideHandle type, int root, WideHandle comm) {
  if (!collsel::pmpi::serves_this_process()) {
    static BcastFn* const own = program_mpi<BcastFn>("PMPI_Bcast");
    return own(buffer, count, type, root, comm);
  }
  return collsel::pmpi::bcast_entry(buffer, count, type, root, comm);
}

int MPI_Scatter(const void* sendbuf, int sendcount, WideHandle sendtype, void* recvbuf,
                int recvcount, WideHandle recvtype, int root, WideHandle comm) {
  if (!collsel::pmpi::serves_this_process()) {
    static ScatterFn* const own = program_mpi<ScatterFn>("PMPI_Scatter");
    return own(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  }
  return collsel::pmpi::scatter_entry(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                      root, comm);
}

int MPI_Alltoall(const void* sendbuf, int sendcount, WideHandle sendtype, void* recvbuf,
                 int recvcount, WideHandle recvtype, WideHandle comm) {
  if (!collsel::pmpi::serves_this_process()) {
    static AlltoallFn* const own = program_mpi<AlltoallFn>("PMPI_Alltoall");
    return own(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  }
  return collsel::pmpi::alltoall_entry(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                       recvtype, comm);
}

}  // extern "C"

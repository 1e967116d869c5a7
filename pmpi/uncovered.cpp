// Pass-through wrappers of the collectives collsel does not serve (issue 17, "what collsel did not
// see"): each calls its PMPI_ routine with the same arguments and returns its result untouched,
// and counts the call and its time (PMPI_Wtime around it) in pmpi/uncovered_counts.hpp; the
// runtime writes the counts as `uncovered` log records at finalize (docs/LOGS.md). Nothing else
// changes: no argument is read, no error handler is involved, and a counter update cannot throw.
// A non-blocking or persistent call's time is its initiation only (its completion is inside
// MPI_Wait/MPI_Test or MPI_Start, which are not wrapped). Cost per call: docs/BENCHMARKS.md,
// "Uncovered-call counting cost".
//
// Built into the MPICH shim only (pmpi/CMakeLists.txt); the MPI-4 `_c` (large count) and `*_init`
// (persistent) routines where mpi.h declares them. The Fortran bindings of MPICH call these C
// symbols, so Fortran calls are counted too.
#include <mpi.h>

#include "pmpi/foreign_mpi.hpp"
#include "pmpi/uncovered_counts.hpp"

namespace {

using collsel::pmpi::g_serves_this_process;
using collsel::pmpi::uncovered::Id;

template <class Call>
int timed(Id id, Call call) {
  const double start = PMPI_Wtime();
  const int rc = call();
  collsel::pmpi::uncovered::add(id, PMPI_Wtime() - start);
  return rc;
}

}  // namespace

// In another MPI's process (the wrong shim preloaded, pmpi/foreign_mpi.cpp) each wrapper first
// hands its arguments on unchanged, as a tail call with the same signature: the registers and
// stack slots still hold the caller's full 64-bit handles, which the counting path would cut to
// this MPI's 32-bit ones (tests/openmpi: foreign_mpi, whose program calls MPI_Reduce).
extern "C" {

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  return timed(Id::allreduce, [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm); });
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
  return timed(Id::reduce, [&] { return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm); });
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
  return timed(Id::alltoallv, [&] { return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm); });
}

int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                          recvtypes, comm);
  return timed(Id::alltoallw, [&] { return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                          recvtypes, comm); });
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return timed(Id::allgather, [&] { return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); });
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm);
  return timed(Id::allgatherv, [&] { return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                           comm); });
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  return timed(Id::gather, [&] { return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); });
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                        comm);
  return timed(Id::gatherv, [&] { return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                        comm); });
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                         comm);
  return timed(Id::scatterv, [&] { return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                         comm); });
}

int MPI_Barrier(MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Barrier(comm);
  return timed(Id::barrier, [&] { return PMPI_Barrier(comm); });
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request* request) {
  if (!g_serves_this_process) return PMPI_Ibcast(buffer, count, datatype, root, comm, request);
  return timed(Id::ibcast, [&] { return PMPI_Ibcast(buffer, count, datatype, root, comm, request); });
}

int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  if (!g_serves_this_process) return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                         request);
  return timed(Id::iscatter, [&] { return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                         request); });
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  if (!g_serves_this_process) return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                          request);
  return timed(Id::ialltoall, [&] { return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                          request); });
}

#if MPI_VERSION >= 4

int MPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   MPI_Info info, MPI_Request* request) {
  if (!g_serves_this_process) return PMPI_Bcast_init(buffer, count, datatype, root, comm, info, request);
  return timed(Id::bcast_init, [&] { return PMPI_Bcast_init(buffer, count, datatype, root, comm, info, request); });
}

int MPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request* request) {
  if (!g_serves_this_process) return PMPI_Scatter_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                             info, request);
  return timed(Id::scatter_init, [&] { return PMPI_Scatter_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                             info, request); });
}

int MPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                      MPI_Request* request) {
  if (!g_serves_this_process) return PMPI_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                              info, request);
  return timed(Id::alltoall_init, [&] { return PMPI_Alltoall_init(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                              info, request); });
}

int MPI_Bcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Bcast_c(buffer, count, datatype, root, comm);
  return timed(Id::bcast_c, [&] { return PMPI_Bcast_c(buffer, count, datatype, root, comm); });
}

int MPI_Scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  return timed(Id::scatter_c, [&] { return PMPI_Scatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); });
}

int MPI_Alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return timed(Id::alltoall_c, [&] { return PMPI_Alltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); });
}

int MPI_Allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Allreduce_c(sendbuf, recvbuf, count, datatype, op, comm);
  return timed(Id::allreduce_c, [&] { return PMPI_Allreduce_c(sendbuf, recvbuf, count, datatype, op, comm); });
}

int MPI_Reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Reduce_c(sendbuf, recvbuf, count, datatype, op, root, comm);
  return timed(Id::reduce_c, [&] { return PMPI_Reduce_c(sendbuf, recvbuf, count, datatype, op, root, comm); });
}

int MPI_Alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                            recvtype, comm);
  return timed(Id::alltoallv_c, [&] { return PMPI_Alltoallv_c(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                            recvtype, comm); });
}

int MPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                            recvtypes, comm);
  return timed(Id::alltoallw_c, [&] { return PMPI_Alltoallw_c(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                            recvtypes, comm); });
}

int MPI_Allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  return timed(Id::allgather_c, [&] { return PMPI_Allgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); });
}

int MPI_Allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                     MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                             comm);
  return timed(Id::allgatherv_c, [&] { return PMPI_Allgatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                             comm); });
}

int MPI_Gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  return timed(Id::gather_c, [&] { return PMPI_Gather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); });
}

int MPI_Gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                  int root, MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Gatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                          comm);
  return timed(Id::gatherv_c, [&] { return PMPI_Gatherv_c(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                          comm); });
}

int MPI_Scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                   MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm) {
  if (!g_serves_this_process) return PMPI_Scatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                           root, comm);
  return timed(Id::scatterv_c, [&] { return PMPI_Scatterv_c(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                           root, comm); });
}

int MPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  if (!g_serves_this_process) return PMPI_Ibcast_c(buffer, count, datatype, root, comm, request);
  return timed(Id::ibcast_c, [&] { return PMPI_Ibcast_c(buffer, count, datatype, root, comm, request); });
}

int MPI_Iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request* request) {
  if (!g_serves_this_process) return PMPI_Iscatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                           request);
  return timed(Id::iscatter_c, [&] { return PMPI_Iscatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                           request); });
}

int MPI_Ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request* request) {
  if (!g_serves_this_process) return PMPI_Ialltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                            request);
  return timed(Id::ialltoall_c, [&] { return PMPI_Ialltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                            request); });
}

int MPI_Bcast_init_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request* request) {
  if (!g_serves_this_process) return PMPI_Bcast_init_c(buffer, count, datatype, root, comm, info, request);
  return timed(Id::bcast_init_c, [&] { return PMPI_Bcast_init_c(buffer, count, datatype, root, comm, info, request); });
}

int MPI_Scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  if (!g_serves_this_process) return PMPI_Scatter_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                               comm, info, request);
  return timed(Id::scatter_init_c, [&] { return PMPI_Scatter_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                               comm, info, request); });
}

int MPI_Alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info info, MPI_Request* request) {
  if (!g_serves_this_process) return PMPI_Alltoall_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                info, request);
  return timed(Id::alltoall_init_c, [&] { return PMPI_Alltoall_init_c(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                info, request); });
}

#endif  // MPI_VERSION >= 4

}  // extern "C"

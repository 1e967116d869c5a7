// The Fortran entry points, for MPIs whose Fortran bindings call PMPI_* directly and so never
// reach the C entry points (Open MPI: ompi/mpi/fortran/mpif-h/bcast_f.c; open-mpi/ompi#3954).
// Compiled only where cmake/mpi_flavour.cmake sets COLLSEL_FORTRAN_ENTRIES. Each converts the
// handles (MPI_Comm_f2c, MPI_Type_f2c) and Fortran's MPI_IN_PLACE / MPI_BOTTOM sentinels where
// the standard allows them, then enters the C entry point (pmpi/entry.cpp), so Fortran calls take
// the same path as C ones. mpif.h and `use mpi` reach the four manglings mpi_bcast, mpi_bcast_,
// mpi_bcast__ and MPI_BCAST (one function and its aliases); `use mpi_f08` reaches
// mpi_bcast_f08_ (ompi/mpi/fortran/use-mpi-f08/bcast_f08.F90), whose handles are derived types
// holding the integer handle and whose ierror is optional (null when absent). In a program of
// another MPI the call goes on, untouched, to the next library defining the symbol.
#include <dlfcn.h>
#include <mpi.h>

#include "flavour/fortran.hpp"
#include "pmpi/foreign_mpi.hpp"

namespace {

using collsel::flavour::fortran_bottom;
using collsel::flavour::fortran_in_place;

using FBcast = void(void*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*);
using FScatter = void(void*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                      MPI_Fint*, MPI_Fint*);
using FAlltoall = void(void*, MPI_Fint*, MPI_Fint*, void*, MPI_Fint*, MPI_Fint*, MPI_Fint*,
                       MPI_Fint*);
using FAbort = void(MPI_Fint*, MPI_Fint*, MPI_Fint*);

// The program's own MPI's definition of `name` (foreign process only).
template <class Fn>
Fn* next(const char* name) {
  return reinterpret_cast<Fn*>(dlsym(RTLD_NEXT, name));
}

void* c_buffer(void* buffer, bool in_place_allowed) {
  if (in_place_allowed && fortran_in_place(buffer)) return MPI_IN_PLACE;
  if (fortran_bottom(buffer)) return MPI_BOTTOM;
  return buffer;
}

void set_error(MPI_Fint* ierr, int rc) {
  if (ierr != nullptr) *ierr = static_cast<MPI_Fint>(rc);
}

// Each body serves the call, or in another MPI's program hands it to that MPI's `name`.
void bcast(const char* name, void* buffer, MPI_Fint* count, MPI_Fint* type, MPI_Fint* root,
           MPI_Fint* comm, MPI_Fint* ierr) {
  if (!collsel::pmpi::serves_this_process()) {
    return next<FBcast>(name)(buffer, count, type, root, comm, ierr);
  }
  set_error(ierr, MPI_Bcast(c_buffer(buffer, false), *count, PMPI_Type_f2c(*type), *root,
                            PMPI_Comm_f2c(*comm)));
}

void scatter(const char* name, void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype,
             void* recvbuf, MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* root,
             MPI_Fint* comm, MPI_Fint* ierr) {
  if (!collsel::pmpi::serves_this_process()) {
    return next<FScatter>(name)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                comm, ierr);
  }
  set_error(ierr, MPI_Scatter(c_buffer(sendbuf, false), *sendcount, PMPI_Type_f2c(*sendtype),
                              c_buffer(recvbuf, true), *recvcount, PMPI_Type_f2c(*recvtype),
                              *root, PMPI_Comm_f2c(*comm)));
}

void alltoall(const char* name, void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype,
              void* recvbuf, MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* comm,
              MPI_Fint* ierr) {
  if (!collsel::pmpi::serves_this_process()) {
    return next<FAlltoall>(name)(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                 ierr);
  }
  set_error(ierr, MPI_Alltoall(c_buffer(sendbuf, true), *sendcount, PMPI_Type_f2c(*sendtype),
                               c_buffer(recvbuf, false), *recvcount, PMPI_Type_f2c(*recvtype),
                               PMPI_Comm_f2c(*comm)));
}

// MPI_ABORT: through the C entry point, which ends the rank's log (abort, with the code) first.
void abort_job(const char* name, MPI_Fint* comm, MPI_Fint* errorcode, MPI_Fint* ierr) {
  if (!collsel::pmpi::serves_this_process()) return next<FAbort>(name)(comm, errorcode, ierr);
  set_error(ierr, MPI_Abort(PMPI_Comm_f2c(*comm), *errorcode));
}

}  // namespace

extern "C" {

// mpif.h and `use mpi`; the same arguments reach `use mpi_f08`'s symbols (a TYPE(MPI_Comm) is
// passed as the address of its integer MPI_VAL), with ierror possibly null.
void mpi_bcast_(void* b, MPI_Fint* n, MPI_Fint* t, MPI_Fint* r, MPI_Fint* c, MPI_Fint* e) {
  bcast("mpi_bcast_", b, n, t, r, c, e);
}
void mpi_bcast_f08_(void* b, MPI_Fint* n, MPI_Fint* t, MPI_Fint* r, MPI_Fint* c, MPI_Fint* e) {
  bcast("mpi_bcast_f08_", b, n, t, r, c, e);
}
void mpi_scatter_(void* sb, MPI_Fint* sn, MPI_Fint* st, void* rb, MPI_Fint* rn, MPI_Fint* rt,
                  MPI_Fint* r, MPI_Fint* c, MPI_Fint* e) {
  scatter("mpi_scatter_", sb, sn, st, rb, rn, rt, r, c, e);
}
void mpi_scatter_f08_(void* sb, MPI_Fint* sn, MPI_Fint* st, void* rb, MPI_Fint* rn, MPI_Fint* rt,
                      MPI_Fint* r, MPI_Fint* c, MPI_Fint* e) {
  scatter("mpi_scatter_f08_", sb, sn, st, rb, rn, rt, r, c, e);
}
void mpi_alltoall_(void* sb, MPI_Fint* sn, MPI_Fint* st, void* rb, MPI_Fint* rn, MPI_Fint* rt,
                   MPI_Fint* c, MPI_Fint* e) {
  alltoall("mpi_alltoall_", sb, sn, st, rb, rn, rt, c, e);
}
void mpi_alltoall_f08_(void* sb, MPI_Fint* sn, MPI_Fint* st, void* rb, MPI_Fint* rn,
                       MPI_Fint* rt, MPI_Fint* c, MPI_Fint* e) {
  alltoall("mpi_alltoall_f08_", sb, sn, st, rb, rn, rt, c, e);
}

void mpi_abort_(MPI_Fint* c, MPI_Fint* code, MPI_Fint* e) {
  abort_job("mpi_abort_", c, code, e);
}
void mpi_abort_f08_(MPI_Fint* c, MPI_Fint* code, MPI_Fint* e) {
  abort_job("mpi_abort_f08_", c, code, e);
}

// The other manglings of mpif.h and `use mpi`.
FBcast mpi_bcast __attribute__((alias("mpi_bcast_")));
FBcast mpi_bcast__ __attribute__((alias("mpi_bcast_")));
FBcast MPI_BCAST __attribute__((alias("mpi_bcast_")));
FScatter mpi_scatter __attribute__((alias("mpi_scatter_")));
FScatter mpi_scatter__ __attribute__((alias("mpi_scatter_")));
FScatter MPI_SCATTER __attribute__((alias("mpi_scatter_")));
FAlltoall mpi_alltoall __attribute__((alias("mpi_alltoall_")));
FAlltoall mpi_alltoall__ __attribute__((alias("mpi_alltoall_")));
FAlltoall MPI_ALLTOALL __attribute__((alias("mpi_alltoall_")));
FAbort mpi_abort __attribute__((alias("mpi_abort_")));
FAbort mpi_abort__ __attribute__((alias("mpi_abort_")));
FAbort MPI_ABORT __attribute__((alias("mpi_abort_")));

}  // extern "C"

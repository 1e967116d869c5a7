// The C entry points of libcollsel.so (STYLE.md 8.6 #20-21): each checks a thread-local re-entry
// guard, forwards to the runtime, and turns any C++ exception into the native routine's answer,
// so nothing propagates into C or Fortran callers. MPICH's Fortran bindings (mpif.h, `use mpi`,
// `use mpi_f08`) call these C symbols for Bcast, Scatter and Alltoall (tests/pmpi prove it); mpi_f08 calls
// PMPI_Init/PMPI_Finalize directly, which the runtime covers with lazy start-up and an
// MPI_COMM_SELF attribute.
#include <mpi.h>

#include <cstdio>
#include <exception>

#include "collsel.h"
#include "collsel_version.hpp"
#include "pmpi/runtime.hpp"

namespace {

thread_local bool t_inside = false;

class Inside {
 public:
  Inside() { t_inside = true; }
  ~Inside() { t_inside = false; }
  Inside(const Inside&) = delete;
  Inside& operator=(const Inside&) = delete;
};

void report(const char* where, const char* what) {
  std::fprintf(stderr, "collsel: internal error in %s (%s); collsel is off for this call\n",
               where, what);
}

// Runs `body`; if it throws, reports once and returns `fallback()`.
template <class Body, class Fallback>
int guarded(const char* where, Body body, Fallback fallback) {
  if (t_inside) return fallback();
  Inside inside;
  try {
    return body();
  } catch (const std::exception& e) {
    report(where, e.what());
  } catch (...) {
    report(where, "unknown exception");
  }
  return fallback();
}

void start_runtime(const char* where) {
  try {
    collsel::pmpi::runtime().initialize();
  } catch (const std::exception& e) {
    report(where, e.what());
  } catch (...) {
    report(where, "unknown exception");
  }
}

}  // namespace

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) start_runtime("MPI_Init");
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) start_runtime("MPI_Init_thread");
  return rc;
}

int MPI_Finalize(void) {
  try {
    collsel::pmpi::runtime().finalize();
    collsel::pmpi::runtime().release_world();
  } catch (...) {
    report("MPI_Finalize", "exception while writing logs");
  }
  return PMPI_Finalize();
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return guarded(
      "MPI_Bcast",
      [&] { return collsel::pmpi::runtime().bcast(buffer, count, datatype, root, comm); },
      [&] { return PMPI_Bcast(buffer, count, datatype, root, comm); });
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return guarded(
      "MPI_Scatter",
      [&] {
        return collsel::pmpi::runtime().scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                recvtype, root, comm);
      },
      [&] {
        return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                            comm);
      });
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return guarded(
      "MPI_Alltoall",
      [&] {
        return collsel::pmpi::runtime().alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                 recvtype, comm);
      },
      [&] {
        return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
      });
}

const char* collsel_last_algorithm(void) { return collsel::pmpi::Runtime::last_algorithm(); }

void collsel_flush(void) {
  try {
    collsel::pmpi::runtime().finalize();
  } catch (...) {
    report("collsel_flush", "exception while writing logs");
  }
}

const char* collsel_version(void) { return collsel::kVersion.data(); }

}  // extern "C"

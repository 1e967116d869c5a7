// The C entry points of libcollsel.so (STYLE.md 8.6 #20-21; the collectives' exported symbols are
// pmpi/wide_entry.cpp's, which call the bodies here): each checks a thread-local re-entry
// guard, forwards to the runtime, and turns any C++ exception into the native routine's answer,
// so nothing propagates into C or Fortran callers. In a program of another MPI than the shim's
// (pmpi/foreign_mpi.cpp) every entry point passes its arguments through untouched. MPICH's Fortran bindings (mpif.h, `use mpi`,
// `use mpi_f08`) call these C symbols for Bcast, Scatter and Alltoall (tests/pmpi prove it);
// Open MPI's do not, and reach them through pmpi/fortran_entry.cpp. mpi_f08 calls
// PMPI_Init/PMPI_Finalize directly, which the runtime covers with lazy start-up and an
// MPI_COMM_SELF attribute.
#include <mpi.h>

#include <cstdio>
#include <cstdint>
#include <exception>
#include <type_traits>

#include "collsel.h"
#include "collsel_version.hpp"
#include "pmpi/entry.hpp"
#include "pmpi/foreign_mpi.hpp"
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

// This build's handle of a caller's wide one (pmpi/entry.hpp): MPICH's 32-bit integers are the
// low bits (the caller left the rest undefined), Open MPI's pointers the whole.
template <class Handle>
Handle handle(collsel::pmpi::WideHandle wide) {
  if constexpr (std::is_pointer_v<Handle>) {
    return reinterpret_cast<Handle>(wide);
  } else {
    return static_cast<Handle>(static_cast<std::uint32_t>(wide));
  }
}

}  // namespace

namespace collsel::pmpi {

int bcast_entry(void* buffer, int count, WideHandle type, int root, WideHandle comm) {
  const auto datatype = handle<MPI_Datatype>(type);
  const auto c = handle<MPI_Comm>(comm);
  return guarded(
      "MPI_Bcast", [&] { return runtime().bcast(buffer, count, datatype, root, c); },
      [&] { return PMPI_Bcast(buffer, count, datatype, root, c); });
}

int scatter_entry(const void* sendbuf, int sendcount, WideHandle send_type, void* recvbuf,
                  int recvcount, WideHandle recv_type, int root, WideHandle comm) {
  const auto sendtype = handle<MPI_Datatype>(send_type);
  const auto recvtype = handle<MPI_Datatype>(recv_type);
  const auto c = handle<MPI_Comm>(comm);
  return guarded(
      "MPI_Scatter",
      [&] {
        return runtime().scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                 c);
      },
      [&] {
        return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, c);
      });
}

int alltoall_entry(const void* sendbuf, int sendcount, WideHandle send_type, void* recvbuf,
                   int recvcount, WideHandle recv_type, WideHandle comm) {
  const auto sendtype = handle<MPI_Datatype>(send_type);
  const auto recvtype = handle<MPI_Datatype>(recv_type);
  const auto c = handle<MPI_Comm>(comm);
  return guarded(
      "MPI_Alltoall",
      [&] {
        return runtime().alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c);
      },
      [&] { return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c); });
}

}  // namespace collsel::pmpi

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS && collsel::pmpi::serves_this_process()) start_runtime("MPI_Init");
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS && collsel::pmpi::serves_this_process()) {
    start_runtime("MPI_Init_thread");
  }
  return rc;
}

int MPI_Finalize(void) {
  if (!collsel::pmpi::serves_this_process()) return PMPI_Finalize();
  try {
    collsel::pmpi::runtime().gather_learned();
    collsel::pmpi::runtime().finalize();
    collsel::pmpi::runtime().release_world();
  } catch (...) {
    report("MPI_Finalize", "exception while writing logs");
  }
  return PMPI_Finalize();
}

// The rank's log says it ended by MPI_Abort, with the code, before the MPI library takes the job
// down (MPICH's launcher then SIGKILLs the other ranks, whose logs are in the page cache already).
int MPI_Abort(MPI_Comm comm, int errorcode) {
  if (collsel::pmpi::serves_this_process()) {
    try {
      collsel::pmpi::runtime().finalize(collsel::pmpi::Ending::abort, errorcode);
    } catch (...) {
      report("MPI_Abort", "exception while writing logs");
    }
  }
  return PMPI_Abort(comm, errorcode);
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

int collsel_private_comms(void) { return collsel::pmpi::runtime().private_comms_held(); }

}  // extern "C"

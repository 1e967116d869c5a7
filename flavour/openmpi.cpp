// The Open MPI flavour (Open MPI 4.1.4, Debian's libopenmpi-dev): libcollsel-openmpi.so. Memory,
// clock, waiting and the natives (Open MPI's own routine only) are process_per_rank.cpp's; here
// are its name, what its native routine runs, and its Fortran sentinels.
//
// What "native" runs: on an intracommunicator Open MPI 4.1.4 takes coll/tuned (priority 30, above
// basic and libnbc; coll/han and coll/adapt are off by default). Without
// coll_tuned_use_dynamic_rules, tuned decides with its fixed rules,
// ompi/mca/coll/tuned/coll_tuned_decision_fixed.c: ompi_coll_tuned_bcast_intra_dec_fixed,
// ompi_coll_tuned_scatter_intra_dec_fixed and ompi_coll_tuned_alltoall_intra_dec_fixed, tables
// over the communicator size and the message size (count x type size for Bcast; one block for
// Scatter and Alltoall) that pick among ompi/mca/coll/base's algorithms (coll_base_bcast.c:
// basic linear, chain, pipeline, split binary tree, binary tree, binomial, knomial,
// scatter-allgather, scatter-allgather ring; coll_base_scatter.c: basic linear, binomial, linear
// non-blocking; coll_base_alltoall.c: basic linear, pairwise, modified Bruck, linear sync, two
// procs), each with a segment size. With the dynamic rules a file (collsel export --format
// ompi-rules) or coll_tuned_<coll>_algorithm replaces the tables. coll_base's algorithms are
// exported by libmpi.so but take the communicator's coll module as an argument, which the MPI
// interface does not give, so they are not listed here one by one as SMPI's are.
#include <dlfcn.h>

#include <initializer_list>

#include "flavour/flavour.hpp"
#include "flavour/fortran.hpp"

namespace collsel::flavour {

std::string_view name() { return "openmpi"; }
bool counts_uncovered() { return false; }

namespace {

// Open MPI's Fortran sentinels are common blocks defined by libmpi.so
// (ompi/mpi/fortran/base/constants.h: the four name manglings of mpi_fortran_in_place and
// mpi_fortran_bottom; mpi_f08's MPI_IN_PLACE is bound to the same storage). Those a library does
// not define resolve to null and match nothing.
struct Sentinel {
  const void* address[4];
  explicit Sentinel(std::initializer_list<const char*> names) {
    int i = 0;
    for (const char* n : names) address[i++] = dlsym(RTLD_DEFAULT, n);
  }
  bool is(const void* buffer) const {
    if (buffer == nullptr) return false;
    for (const void* a : address) {
      if (a == buffer) return true;
    }
    return false;
  }
};

const Sentinel& in_place() {
  static const Sentinel s{"mpi_fortran_in_place", "mpi_fortran_in_place_",
                          "mpi_fortran_in_place__", "MPI_FORTRAN_IN_PLACE"};
  return s;
}

const Sentinel& bottom() {
  static const Sentinel s{"mpi_fortran_bottom", "mpi_fortran_bottom_", "mpi_fortran_bottom__",
                          "MPI_FORTRAN_BOTTOM"};
  return s;
}

}  // namespace

bool fortran_in_place(const void* buffer) { return in_place().is(buffer); }
bool fortran_bottom(const void* buffer) { return bottom().is(buffer); }

}  // namespace collsel::flavour

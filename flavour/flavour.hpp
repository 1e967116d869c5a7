// What differs between the MPI libraries collsel is compiled for, in one place (the build-time
// half is cmake/mpi_flavour.cmake). One implementation file per MPI is compiled in:
// flavour/mpich.cpp (the library users preload by default), flavour/openmpi.cpp (Open MPI) or
// flavour/smpi.cpp (SimGrid's SMPI, simulated clusters; docs/SIMULATION.md). Nothing else in the
// tree tests which MPI it is built for.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace collsel::flavour {

// "mpich", "openmpi" or "smpi": recorded in benchmark output so figures say where they were taken.
std::string_view name();

// The MPI library the process's MPI calls reach, when it is another than the one this build is
// for (a program built with Open MPI that preloads the MPICH shim, say): its name and the collsel
// library built for it. Nothing when it is this build's MPI or cannot be told. The shim then
// stays out of the way (pmpi/foreign_mpi.cpp): its own handles and constants would be another
// library's.
struct ForeignMpi {
  std::string_view mpi;   // "Open MPI"
  std::string_view shim;  // "libcollsel-openmpi.so"
};
std::optional<ForeignMpi> foreign_mpi();

// True when this build's shim counts the collectives it does not serve (pmpi/uncovered.cpp's
// pass-through wrappers are compiled in): MPICH. Not yet for Open MPI (its Fortran bindings call
// PMPI_ directly, so C wrappers alone would undercount) nor for SMPI.
bool counts_uncovered();

// True when MPI_Wtime is one clock for every rank: SMPI's simulated clock. A call then lasts from
// the first rank's start to the last rank's end. With MPICH each rank's clock is its own, and a
// call lasts the longest of the ranks' own durations, which misses the time a rank that left the
// preceding barrier early spends before the others start (a flat Scatter's root sending, say).
bool global_clock();

// Lets other ranks run for `seconds` (>= 0): nanosleep with MPICH; under SMPI a simulated sleep
// (smpi_nanosleep), since a real one would stop the whole simulation, every rank of which runs in
// this one process, and would not advance the simulated clock.
void sleep_for(double seconds);

// Keeps this rank busy until PMPI_Wtime() reaches `t`, as a rank computing would be (a receiver
// kept from its receive call): spins with MPICH; under SMPI, where every clock read advances the
// simulated clock by a few nanoseconds and a spin would take millions of them, a simulated sleep
// of the time left, which the simulated network sees the same way.
void busy_until(double t);

// Payload memory: the temporaries of collsel's algorithms (packed datatypes, forwarded Scatter
// blocks, Bruck's slots, in-place staging) and the benchmarks' buffers.
//
// With MPICH it is ordinary zero-filled heap memory. Under SMPI every simulated rank lives in one
// process, so a 16 MiB Scatter at 1024 ranks would need tens of GiB; when the environment variable
// COLLSEL_SMPI_SHARED_BYTES is set, buffers of at least that many bytes are SMPI shared memory
// (SMPI_SHARED_MALLOC: every rank's buffer maps the same pages, SMPI skips copying them), which
// keeps every simulated time exact and makes the bytes meaningless. Correctness is checked only
// below that size (tests/smpi run without it).
class Scratch {
 public:
  Scratch() = default;
  explicit Scratch(std::size_t bytes);
  ~Scratch();
  Scratch(Scratch&& other) noexcept;
  Scratch& operator=(Scratch&& other) noexcept;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  [[nodiscard]] std::byte* data() { return data_; }
  [[nodiscard]] const std::byte* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  // True when the bytes are shared between simulated ranks (their contents mean nothing).
  [[nodiscard]] bool shared() const { return shared_; }

 private:
  void release();
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  bool shared_ = false;
};

// True when a buffer of `bytes` would be shared memory (see Scratch): results at that size cannot
// be checked. Always false with MPICH.
bool payload_shared(std::size_t bytes);

// The library's own routines a benchmark compares collsel with. The first of each list is
// "native", the routine MPI_Bcast/MPI_Scatter/MPI_Alltoall reaches (PMPI_*). SMPI adds its
// selectors of other libraries ("smpi:mpich", "smpi:ompi": what users of those libraries get) and
// each of its own algorithms ("smpi:binomial_tree"...), called directly, so one simulation
// measures them all.
using BcastFn = int (*)(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);
using ScatterFn = int (*)(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
using AlltoallFn = int (*)(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);

// What a native routine stands for in a comparison.
enum class NativeKind {
  library,   // the library's own choice (PMPI_*)
  selector,  // another library's selection logic, as the simulator reproduces it
  algorithm  // one fixed algorithm of the library
};

template <class Fn>
struct Native {
  std::string_view name;
  NativeKind kind;
  Fn run;
};

std::span<const Native<BcastFn>> bcast_natives();
std::span<const Native<ScatterFn>> scatter_natives();
std::span<const Native<AlltoallFn>> alltoall_natives();

}  // namespace collsel::flavour

// What the MPIs whose ranks are operating-system processes share (MPICH, Open MPI; not SMPI,
// whose simulated ranks share one process and a simulated clock): payloads are plain heap memory,
// each rank's clock is its own, waiting is real time, the only native routine is the library's
// own (PMPI_*; what it runs: mpich.cpp, openmpi.cpp), and the process may have been started with
// another MPI than this build's.
#include <dlfcn.h>
#include <time.h>

#include <cmath>
#include <memory>

#include "flavour/detail.hpp"
#include "flavour/flavour.hpp"

namespace collsel::flavour {

bool payload_shared(std::size_t) { return false; }

bool global_clock() { return false; }

void busy_until(double t) {
  while (PMPI_Wtime() < t) {
  }
}

void sleep_for(double seconds) {
  timespec pause{static_cast<time_t>(seconds), static_cast<long>(std::fmod(seconds, 1.0) * 1e9)};
  nanosleep(&pause, nullptr);
}

namespace {

constexpr Native<BcastFn> kBcast[] = {{"native", NativeKind::library, PMPI_Bcast}};
constexpr Native<ScatterFn> kScatter[] = {{"native", NativeKind::library, PMPI_Scatter}};
constexpr Native<AlltoallFn> kAlltoall[] = {{"native", NativeKind::library, PMPI_Alltoall}};

// The MPIs a shim is built for, each told by a symbol only its library defines.
struct KnownMpi {
  std::string_view flavour;
  std::string_view mpi;
  const char* marker;
  std::string_view shim;
};
constexpr KnownMpi kKnownMpis[] = {
    {"mpich", "MPICH", "MPIR_Err_create_code", "libcollsel.so"},
    {"openmpi", "Open MPI", "ompi_mpi_comm_world", "libcollsel-openmpi.so"},
};

}  // namespace

// The library that defines the PMPI_Init the process's calls reach (the program's own MPI comes
// before the shim's dependencies in the lookup order, so a shim preloaded into a program of
// another MPI reaches that MPI), asked for each known MPI's marker.
std::optional<ForeignMpi> foreign_mpi() {
  Dl_info info{};
  void* init = dlsym(RTLD_DEFAULT, "PMPI_Init");
  if (init == nullptr || dladdr(init, &info) == 0 || info.dli_fname == nullptr) return {};
  void* library = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (library == nullptr) return {};
  std::optional<ForeignMpi> foreign;
  for (const KnownMpi& known : kKnownMpis) {
    if (known.flavour != name() && dlsym(library, known.marker) != nullptr) {
      foreign = ForeignMpi{known.mpi, known.shim};
    }
  }
  dlclose(library);
  return foreign;
}

namespace detail {

std::byte* allocate_payload(std::size_t bytes, bool& shared) {
  shared = false;
  return std::make_unique<std::byte[]>(bytes).release();
}

void free_payload(std::byte* data, bool) { std::unique_ptr<std::byte[]>{data}; }

}  // namespace detail

std::span<const Native<BcastFn>> bcast_natives() { return kBcast; }
std::span<const Native<ScatterFn>> scatter_natives() { return kScatter; }
std::span<const Native<AlltoallFn>> alltoall_natives() { return kAlltoall; }

}  // namespace collsel::flavour

// The SMPI flavour: SimGrid 3.32's simulated MPI (docs/SIMULATION.md). Payloads above
// COLLSEL_SMPI_SHARED_BYTES are SMPI shared memory, and the natives include SMPI's selectors of
// other libraries and each of its own algorithms.
#include <smpi/smpi_helpers_internal.h>
#include <time.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>

#include "flavour/detail.hpp"
#include "flavour/flavour.hpp"

// SimGrid's collective algorithms, exported by libsimgrid.so (src/smpi/colls/); SMPI's MPI_Bcast
// reaches one of them through the selector chosen with --cfg=smpi/coll-selector or
// --cfg=smpi/bcast. In C++, SMPI's MPI_Comm and MPI_Datatype are simgrid::smpi::Comm* and
// simgrid::smpi::Datatype*, so the handles pass through unchanged. The lists: the selectors first,
// then every algorithm `--cfg=smpi/bcast:help` (scatter, alltoall) names in 3.32, except
// "default" (what "native" runs), "automatic" (it times every algorithm at each call) and
// alltoall "pair_rma" (one-sided, MPI_Win: not what a two-sided library offers), and bcast
// "SMP_linear" (aborts with MPI_ERR_TRUNCATE from 64 ranks on) and the "mvapich2_*_node" halves
// of MVAPICH2's two-level broadcast, which expect the node and leader communicators its selector
// ("smpi:mvapich2", kept) builds: called on a whole communicator, inter_node delivered wrong data
// and intra_node deadlocked after it (16 ranks, gige).
namespace simgrid::smpi {
using BcastSig = int(void*, int, MPI_Datatype, int, MPI_Comm);
using ScatterSig = int(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, int, MPI_Comm);
using AlltoallSig = int(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm);
BcastSig bcast__mpich, bcast__ompi, bcast__mvapich2, bcast__impi, bcast__arrival_pattern_aware,
    bcast__arrival_pattern_aware_wait, bcast__arrival_scatter, bcast__binomial_tree,
    bcast__flattree, bcast__flattree_pipeline, bcast__NTSB, bcast__NTSL, bcast__NTSL_Isend,
    bcast__scatter_LR_allgather, bcast__scatter_rdb_allgather, bcast__SMP_binary,
    bcast__SMP_binomial, bcast__ompi_split_bintree, bcast__ompi_pipeline;

ScatterSig scatter__mpich, scatter__ompi, scatter__mvapich2, scatter__impi,
    scatter__ompi_basic_linear, scatter__ompi_linear_nb, scatter__ompi_binomial,
    scatter__mvapich2_two_level_binomial, scatter__mvapich2_two_level_direct;
AlltoallSig alltoall__mpich, alltoall__ompi, alltoall__mvapich2, alltoall__impi, alltoall__2dmesh,
    alltoall__3dmesh, alltoall__basic_linear, alltoall__bruck, alltoall__pair,
    alltoall__pair_light_barrier, alltoall__pair_mpi_barrier, alltoall__pair_one_barrier,
    alltoall__rdb, alltoall__ring, alltoall__ring_light_barrier, alltoall__ring_mpi_barrier,
    alltoall__ring_one_barrier, alltoall__mvapich2_scatter_dest;
}  // namespace simgrid::smpi

namespace collsel::flavour {

std::string_view name() { return "smpi"; }
bool counts_uncovered() { return false; }

namespace {

// COLLSEL_SMPI_SHARED_BYTES, read once (every simulated rank reads the same environment).
std::size_t shared_threshold() {
  static const std::size_t threshold = [] {
    const char* value = std::getenv("COLLSEL_SMPI_SHARED_BYTES");
    if (value == nullptr || *value == '\0') return std::numeric_limits<std::size_t>::max();
    char* end = nullptr;
    const unsigned long long n = std::strtoull(value, &end, 10);
    return *end == '\0' ? static_cast<std::size_t>(n) : std::numeric_limits<std::size_t>::max();
  }();
  return threshold;
}

const Native<BcastFn> kBcast[] = {
    {"native", NativeKind::library, PMPI_Bcast},
    {"smpi:mpich", NativeKind::selector, simgrid::smpi::bcast__mpich},
    {"smpi:ompi", NativeKind::selector, simgrid::smpi::bcast__ompi},
    {"smpi:mvapich2", NativeKind::selector, simgrid::smpi::bcast__mvapich2},
    {"smpi:impi", NativeKind::selector, simgrid::smpi::bcast__impi},
    {"smpi:arrival_pattern_aware", NativeKind::algorithm, simgrid::smpi::bcast__arrival_pattern_aware},
    {"smpi:arrival_pattern_aware_wait", NativeKind::algorithm, simgrid::smpi::bcast__arrival_pattern_aware_wait},
    {"smpi:arrival_scatter", NativeKind::algorithm, simgrid::smpi::bcast__arrival_scatter},
    {"smpi:binomial_tree", NativeKind::algorithm, simgrid::smpi::bcast__binomial_tree},
    {"smpi:flattree", NativeKind::algorithm, simgrid::smpi::bcast__flattree},
    {"smpi:flattree_pipeline", NativeKind::algorithm, simgrid::smpi::bcast__flattree_pipeline},
    {"smpi:NTSB", NativeKind::algorithm, simgrid::smpi::bcast__NTSB},
    {"smpi:NTSL", NativeKind::algorithm, simgrid::smpi::bcast__NTSL},
    {"smpi:NTSL_Isend", NativeKind::algorithm, simgrid::smpi::bcast__NTSL_Isend},
    {"smpi:scatter_LR_allgather", NativeKind::algorithm, simgrid::smpi::bcast__scatter_LR_allgather},
    {"smpi:scatter_rdb_allgather", NativeKind::algorithm, simgrid::smpi::bcast__scatter_rdb_allgather},
    {"smpi:SMP_binary", NativeKind::algorithm, simgrid::smpi::bcast__SMP_binary},
    {"smpi:SMP_binomial", NativeKind::algorithm, simgrid::smpi::bcast__SMP_binomial},
    {"smpi:ompi_split_bintree", NativeKind::algorithm, simgrid::smpi::bcast__ompi_split_bintree},
    {"smpi:ompi_pipeline", NativeKind::algorithm, simgrid::smpi::bcast__ompi_pipeline},
};
const Native<ScatterFn> kScatter[] = {
    {"native", NativeKind::library, PMPI_Scatter},
    {"smpi:mpich", NativeKind::selector, simgrid::smpi::scatter__mpich},
    {"smpi:ompi", NativeKind::selector, simgrid::smpi::scatter__ompi},
    {"smpi:mvapich2", NativeKind::selector, simgrid::smpi::scatter__mvapich2},
    {"smpi:impi", NativeKind::selector, simgrid::smpi::scatter__impi},
    {"smpi:ompi_basic_linear", NativeKind::algorithm, simgrid::smpi::scatter__ompi_basic_linear},
    {"smpi:ompi_linear_nb", NativeKind::algorithm, simgrid::smpi::scatter__ompi_linear_nb},
    {"smpi:ompi_binomial", NativeKind::algorithm, simgrid::smpi::scatter__ompi_binomial},
    {"smpi:mvapich2_two_level_binomial", NativeKind::algorithm, simgrid::smpi::scatter__mvapich2_two_level_binomial},
    {"smpi:mvapich2_two_level_direct", NativeKind::algorithm, simgrid::smpi::scatter__mvapich2_two_level_direct},
};
const Native<AlltoallFn> kAlltoall[] = {
    {"native", NativeKind::library, PMPI_Alltoall},
    {"smpi:mpich", NativeKind::selector, simgrid::smpi::alltoall__mpich},
    {"smpi:ompi", NativeKind::selector, simgrid::smpi::alltoall__ompi},
    {"smpi:mvapich2", NativeKind::selector, simgrid::smpi::alltoall__mvapich2},
    {"smpi:impi", NativeKind::selector, simgrid::smpi::alltoall__impi},
    {"smpi:2dmesh", NativeKind::algorithm, simgrid::smpi::alltoall__2dmesh},
    {"smpi:3dmesh", NativeKind::algorithm, simgrid::smpi::alltoall__3dmesh},
    {"smpi:basic_linear", NativeKind::algorithm, simgrid::smpi::alltoall__basic_linear},
    {"smpi:bruck", NativeKind::algorithm, simgrid::smpi::alltoall__bruck},
    {"smpi:pair", NativeKind::algorithm, simgrid::smpi::alltoall__pair},
    {"smpi:pair_light_barrier", NativeKind::algorithm, simgrid::smpi::alltoall__pair_light_barrier},
    {"smpi:pair_mpi_barrier", NativeKind::algorithm, simgrid::smpi::alltoall__pair_mpi_barrier},
    {"smpi:pair_one_barrier", NativeKind::algorithm, simgrid::smpi::alltoall__pair_one_barrier},
    {"smpi:rdb", NativeKind::algorithm, simgrid::smpi::alltoall__rdb},
    {"smpi:ring", NativeKind::algorithm, simgrid::smpi::alltoall__ring},
    {"smpi:ring_light_barrier", NativeKind::algorithm, simgrid::smpi::alltoall__ring_light_barrier},
    {"smpi:ring_mpi_barrier", NativeKind::algorithm, simgrid::smpi::alltoall__ring_mpi_barrier},
    {"smpi:ring_one_barrier", NativeKind::algorithm, simgrid::smpi::alltoall__ring_one_barrier},
    {"smpi:mvapich2_scatter_dest", NativeKind::algorithm, simgrid::smpi::alltoall__mvapich2_scatter_dest},
};

}  // namespace

bool payload_shared(std::size_t bytes) { return bytes >= shared_threshold(); }

bool global_clock() { return true; }

// smpirun loads the shim into SMPI programs only (tools/simcluster), never into another MPI's.
std::optional<ForeignMpi> foreign_mpi() { return {}; }

void busy_until(double t) {
  if (const double left = t - PMPI_Wtime(); left > 0) sleep_for(left);
}

void sleep_for(double seconds) {
  timespec pause{static_cast<time_t>(seconds), static_cast<long>(std::fmod(seconds, 1.0) * 1e9)};
  smpi_nanosleep(&pause, nullptr);
}

namespace detail {

std::byte* allocate_payload(std::size_t bytes, bool& shared) {
  shared = payload_shared(bytes);
  if (shared) return static_cast<std::byte*>(smpi_shared_malloc(bytes, __FILE__, __LINE__));
  return std::make_unique<std::byte[]>(bytes).release();
}

void free_payload(std::byte* data, bool shared) {
  if (shared) {
    smpi_shared_free(data);
  } else {
    std::unique_ptr<std::byte[]>{data};
  }
}

}  // namespace detail

std::span<const Native<BcastFn>> bcast_natives() { return kBcast; }
std::span<const Native<ScatterFn>> scatter_natives() { return kScatter; }
std::span<const Native<AlltoallFn>> alltoall_natives() { return kAlltoall; }

}  // namespace collsel::flavour

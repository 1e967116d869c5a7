// The MPICH flavour: the library users preload. Payloads are plain heap memory and the only native
// routine is MPICH's own.
#include <time.h>

#include <cmath>
#include <memory>

#include "flavour/detail.hpp"
#include "flavour/flavour.hpp"

namespace collsel::flavour {

std::string_view name() { return "mpich"; }

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

namespace detail {

std::byte* allocate_payload(std::size_t bytes, bool& shared) {
  shared = false;
  return std::make_unique<std::byte[]>(bytes).release();
}

void free_payload(std::byte* data, bool) { std::unique_ptr<std::byte[]>{data}; }

}  // namespace detail

namespace {

constexpr Native<BcastFn> kBcast[] = {{"native", NativeKind::library, PMPI_Bcast}};
constexpr Native<ScatterFn> kScatter[] = {{"native", NativeKind::library, PMPI_Scatter}};
constexpr Native<AlltoallFn> kAlltoall[] = {{"native", NativeKind::library, PMPI_Alltoall}};

}  // namespace

std::span<const Native<BcastFn>> bcast_natives() { return kBcast; }
std::span<const Native<ScatterFn>> scatter_natives() { return kScatter; }
std::span<const Native<AlltoallFn>> alltoall_natives() { return kAlltoall; }

}  // namespace collsel::flavour

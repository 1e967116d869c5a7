// The shim preloaded into a program of another MPI: one message, then pass-through. No MPI call
// may be made to find the rank (this build's MPI_COMM_WORLD is not the program's), so rank 0 is
// told by the launchers' environment.
#include "pmpi/foreign_mpi.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "flavour/flavour.hpp"

namespace collsel::pmpi {

namespace {

// True unless a launcher says this is another rank than 0 (Open MPI, MPICH's hydra, PMIx).
bool launched_as_rank_zero() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"}) {
    if (const char* value = std::getenv(name)) return std::string(value) == "0";
  }
  return true;
}

std::string this_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&serves_this_process), &info) == 0 ||
      info.dli_fname == nullptr) {
    return "this library";
  }
  return info.dli_fname;
}

bool decide() {
  const auto foreign = flavour::foreign_mpi();
  if (!foreign) return true;
  if (launched_as_rank_zero()) {
    const std::filesystem::path self = this_library();
    const std::filesystem::path sibling = self.parent_path() / foreign->shim;
    const std::string where = std::filesystem::exists(sibling) ? " (" + sibling.string() + ")" : "";
    std::fprintf(stderr,
                 "collsel: this program runs %.*s but %s is built for %.*s; preload %.*s%s "
                 "instead. collsel is off: the program runs with %.*s's own collectives\n",
                 static_cast<int>(foreign->mpi.size()), foreign->mpi.data(), self.c_str(),
                 static_cast<int>(flavour::name().size()), flavour::name().data(),
                 static_cast<int>(foreign->shim.size()), foreign->shim.data(), where.c_str(),
                 static_cast<int>(foreign->mpi.size()), foreign->mpi.data());
  }
  return false;
}

}  // namespace

bool serves_this_process() {
  static const bool serves = decide();
  return serves;
}

bool g_serves_this_process = true;

namespace {
__attribute__((constructor)) void decide_at_load() { g_serves_this_process = serves_this_process(); }
}  // namespace

}  // namespace collsel::pmpi

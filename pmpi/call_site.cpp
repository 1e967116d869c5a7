#include "call_site.hpp"

// Local unwinding only: the _UL entry points skip the remote-unwinding machinery.
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <algorithm>
#include <array>
#include <string_view>

#include "loaded_objects.hpp"

namespace collsel::pmpi {
namespace {

// Frames walked beyond `depth` so the internal ones can be skipped: the unwinder's own, collsel's
// entry point down to capture(), and the MPI library's language bindings (mpi_bcast_ ->
// MPI_Bcast). About 8 on today's paths; the rest is margin. A bound keeps the buffer on the stack
// and the walk short: unw_backtrace walks as many frames as the buffer holds.
constexpr int kSlack = 16;

// Its address identifies the object this copy of call_site.cpp is linked into (libcollsel.so in
// production): internal linkage, so no other object's definition can interpose on it.
void anchor() {}

bool contains(const LoadedObject& o, std::uint64_t pc) { return o.start <= pc && pc < o.end; }

// libmpich, libmpifort, libmpicxx, Open MPI's libmpi and libmpi_usempif08...: the MPI library's
// objects, whose frames (the Fortran bindings above all) lie between the user's call and ours.
bool is_mpi_library(std::string_view path) {
  const auto slash = path.rfind('/');
  const auto name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  return name.starts_with("libmpi");
}

}  // namespace

std::size_t CallSiteHash::operator()(const CallSite& s) const noexcept {
  // FNV-1a over the used pcs: cheap, and return addresses differ in their low bits.
  std::uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < s.depth; ++i) {
    h ^= s.pcs[static_cast<std::size_t>(i)];
    h *= 1099511628211ull;
  }
  return static_cast<std::size_t>(h ^ s.depth);
}

CallSiteCapture::CallSiteCapture(int depth) : depth_(std::clamp(depth, 0, kMaxStackDepth)) {
  if (depth_ == 0) return;
  const auto self = reinterpret_cast<std::uint64_t>(&anchor);
  const auto unwinder = reinterpret_cast<std::uint64_t>(&unw_backtrace);
  for (const LoadedObject& o : loaded_objects()) {
    if (contains(o, self) || contains(o, unwinder) || is_mpi_library(o.path)) {
      internal_.emplace_back(o.start, o.end);
    }
  }
}

CallSite CallSiteCapture::capture() const {
  CallSite site;
  if (depth_ == 0) return site;
  std::array<void*, kMaxStackDepth + kSlack> frames;
  const int n = unw_backtrace(frames.data(), depth_ + kSlack);
  const auto internal = [this](std::uint64_t pc) {
    return std::any_of(internal_.begin(), internal_.end(),
                       [pc](const auto& r) { return r.first <= pc && pc < r.second; });
  };
  int i = 0;
  while (i < n && internal(reinterpret_cast<std::uint64_t>(frames[static_cast<std::size_t>(i)]))) {
    ++i;
  }
  // Only the leading internal frames are skipped: further up, an MPI frame (a user callback run
  // by the library) is part of the call site.
  for (; i < n && site.depth < depth_; ++i) {
    site.pcs[site.depth++] = reinterpret_cast<std::uint64_t>(frames[static_cast<std::size_t>(i)]);
  }
  return site;
}

}  // namespace collsel::pmpi

// Call sites: the return addresses of the user's frames above the MPI entry point, captured with
// libunwind on the call path and symbolised only at report time (tools/symbolize.hpp), so a call
// costs an unwind of a few frames and no symbol lookup. Frames inside libcollsel.so and the MPI
// library (the Fortran bindings' mpi_bcast_ and friends included) are skipped, so the first frame
// is the user's line that called MPI_Bcast, in C and Fortran alike.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace collsel::pmpi {

inline constexpr int kMaxStackDepth = 8;

struct CallSite {
  std::array<std::uint64_t, kMaxStackDepth> pcs{};  // return addresses, innermost first
  std::uint8_t depth = 0;                           // pcs used

  friend bool operator==(const CallSite&, const CallSite&) = default;
};

struct CallSiteHash {
  std::size_t operator()(const CallSite& s) const noexcept;
};

class CallSiteCapture {
 public:
  // depth 0: capture nothing (capture() returns an empty site at no cost); clamped to
  // kMaxStackDepth. Reads the address ranges to skip once: the object this code is linked into
  // (libcollsel.so), the unwinder's, and every object named libmpi* (MPICH's libmpich, libmpifort).
  explicit CallSiteCapture(int depth);

  [[nodiscard]] int depth() const { return depth_; }
  // The first depth() frames outside collsel and the MPI library, innermost first. No allocation,
  // no locks: safe from any thread.
  [[nodiscard]] CallSite capture() const;

 private:
  int depth_ = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> internal_;  // [start, end) to skip
};

}  // namespace collsel::pmpi

// Search for the segment size that minimises a segmented model (seed 001 section 3.1: "search the
// segment size s that minimises the communication time"; s is a multiple of the datatype size).
#pragma once

#include <cstdint>
#include <functional>

#include "models/plogp/params.hpp"

namespace collsel::models::plogp {

struct SegmentChoice {
  std::uint64_t segment_bytes = 0;  // a multiple of unit_bytes, or m itself (one segment)
  double predicted_s = 0.0;
};

// Candidates, all multiples of unit_bytes in [unit_bytes, m] plus m itself:
//   - round_up(ceil(m / k), unit_bytes) for k = 1 .. min(m / unit_bytes, 4096),
//   - unit_bytes x 2^i,
//   - every table size of `p`, rounded up to unit_bytes.
// The minimum predicted time wins; ties go to the larger segment (fewer messages). Deterministic:
// the same inputs give the same choice on every rank. m == 0 gives {0, model(0)}.
// unit_bytes == 0 is treated as 1.
SegmentChoice best_segment(const Params& p, std::uint64_t m, std::uint64_t unit_bytes,
                           const std::function<double(std::uint64_t s)>& model);

}  // namespace collsel::models::plogp

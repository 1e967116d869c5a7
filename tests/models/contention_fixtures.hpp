// Shared by the contention tests: building communications, and seed 003's test bed numbers.
#pragma once

#include <string>
#include <utility>

#include "models/contention/graph.hpp"

namespace collsel::models::contention::fixtures {

// Communication has a vector member; build it field by field.
inline Communication comm(std::string name, int src, int dst, double bytes, double start_s = 0.0) {
  Communication c;
  c.name = std::move(name);
  c.src = src;
  c.dst = dst;
  c.bytes = bytes;
  c.start_s = start_s;
  return c;
}

// Seed 003 section 5: alpha from the measured 1.82 GB/s, messages of 20 MB = 20 x 2^20 bytes
// (with 20e6 bytes none of the printed times come out).
inline constexpr double kAlpha = 5.105e-10;
inline constexpr double kBytes = 20.0 * 1048576.0;

}  // namespace collsel::models::contention::fixtures

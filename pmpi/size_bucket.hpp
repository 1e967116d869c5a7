// The size buckets of the log's `summary` records (docs/LOGS.md): the shim's summary table files
// calls under them and `collsel report` groups trace calls under the same ones, so this header
// (no MPI, no other dependency) is the one definition both include.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

namespace collsel::pmpi {

// The size bucket of a message: bit_width(bytes), so bucket 0 holds 0 bytes, 1 holds 1, 2 holds
// 2-3, 3 holds 4-7, ..., 64 holds 2^63 and above. Powers of two: the models' costs change by
// protocol thresholds and bandwidth, both well resolved at this granularity.
constexpr std::uint8_t size_bucket(std::uint64_t bytes) {
  return static_cast<std::uint8_t>(std::bit_width(bytes));
}
constexpr std::uint64_t bucket_low(std::uint8_t bucket) {
  return bucket == 0 ? 0 : std::uint64_t{1} << (bucket - 1);
}
constexpr std::uint64_t bucket_high(std::uint8_t bucket) {
  if (bucket == 0) return 0;
  if (bucket >= 64) return std::numeric_limits<std::uint64_t>::max();
  return (std::uint64_t{1} << bucket) - 1;
}

}  // namespace collsel::pmpi

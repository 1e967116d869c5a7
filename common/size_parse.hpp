// Message sizes as users type them on the command line ("4k", "1MiB") and as the tools print
// them. Every suffix is binary: k/K/KB/KiB = 1024, M/MB/MiB = 1024^2, G/GB/GiB = 1024^3,
// T/TB/TiB = 1024^4, because MPI buffers are sized in powers of two and "1M" meaning 10^6 would
// silently give a non-power-of-two size that no benchmark uses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace collsel::common {

struct SizeParse {
  std::optional<std::uint64_t> bytes;  // empty on error
  std::string error;                   // what was wrong and what is accepted, when bytes is empty
};

// "0", "1024", "4k", "4K", "4KiB", "4KB", "1M", "1MiB", "1GiB", "4096B". Case-insensitive
// suffixes, no spaces, no sign, no fractions; values above 2^64-1 are rejected.
SizeParse parse_size(std::string_view text);

// Exact and short: "4 KiB" when the size is a whole number of KiB/MiB/GiB/TiB, else "1000 B".
std::string format_size(std::uint64_t bytes);

}  // namespace collsel::common

// The CLI11 check of a SIZE option ("4k", "1MiB"), shared by every program that takes one, so
// they accept and reject the same spellings with the same message.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "common/size_parse.hpp"

namespace collsel::common {

// Accepts what parse_size accepts, within [min_bytes, max_bytes].
inline CLI::Validator size_validator(
    std::uint64_t min_bytes = 0,
    std::uint64_t max_bytes = std::numeric_limits<std::uint64_t>::max()) {
  return CLI::Validator(
      [min_bytes, max_bytes](std::string& text) {
        const SizeParse parsed = parse_size(text);
        if (!parsed.bytes) return parsed.error;
        if (*parsed.bytes < min_bytes || *parsed.bytes > max_bytes) {
          return fmt::format("must be between {} and {}", format_size(min_bytes),
                             format_size(max_bytes));
        }
        return std::string();
      },
      "SIZE", "size");
}

}  // namespace collsel::common

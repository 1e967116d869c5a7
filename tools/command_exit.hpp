// Exit codes and usage errors shared by every `collsel` subcommand, so scripts can tell a bad
// command line (2, as CLI11's own errors) from inputs that could not be used (1).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace collsel::tools {

inline constexpr int kExitUnusable = 1;
inline constexpr int kExitBadArguments = 2;

// A usage error found after CLI11 parsed the line; reported like CLI11's own.
inline int usage_error(std::string_view command, const std::string& message) {
  fmt::print(stderr, "collsel {}: {}\nRun with --help for more information.\n", command, message);
  return kExitBadArguments;
}

}  // namespace collsel::tools

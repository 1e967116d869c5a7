// What every `collsel` subcommand shares: exit codes and usage errors, so scripts can tell a bad
// command line (2, as CLI11's own errors) from inputs that could not be used (1); and the reading
// of an optional path option.
#pragma once

#include <cstdio>
#include <optional>
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

// An option left empty (CLI11's default for a string) means "not given".
inline std::optional<std::string> optional_text(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional<std::string>(s);
}

}  // namespace collsel::tools

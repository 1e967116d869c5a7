// A problem found in a user's file: where it is, what is wrong, and what to do about it. Shared by
// the model-file and config readers so every message has the same shape (STYLE.md 8.7):
//   collsel: conf/cluster.toml:12: unknown algorithm 'bcast.binomal' in [override]; <fix>
#pragma once

#include <string>
#include <vector>

namespace collsel {

struct Diagnostic {
  enum class Severity { warning, error };
  Severity severity = Severity::error;
  std::string file;  // as the user named it, or "<embedded default model>"
  int line = 0;      // 1-based; 0 when the problem concerns the whole file
  std::string problem;
  std::string fix;

  // "collsel: FILE:LINE: PROBLEM; FIX" (":LINE" left out when line == 0).
  [[nodiscard]] std::string format() const;
};

using Diagnostics = std::vector<Diagnostic>;

[[nodiscard]] bool has_errors(const Diagnostics& d);

}  // namespace collsel

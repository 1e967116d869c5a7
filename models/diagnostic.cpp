#include "models/diagnostic.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace collsel {

std::string Diagnostic::format() const {
  std::string out = "collsel: ";
  // A diagnostic always names a file in practice; an empty one would otherwise print ": " alone.
  if (!file.empty()) {
    out += file;
    if (line > 0) out += fmt::format(":{}", line);
    out += ": ";
  }
  out += problem;
  if (!fix.empty()) {
    out += "; ";
    out += fix;
  }
  return out;
}

bool has_errors(const Diagnostics& d) {
  return std::any_of(d.begin(), d.end(),
                     [](const Diagnostic& x) { return x.severity == Diagnostic::Severity::error; });
}

}  // namespace collsel

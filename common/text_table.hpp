// Aligned plain-text tables for the tools' human-readable output. Column widths come from the
// cells, so a long algorithm name or a "n/a: reason" never breaks the alignment.
#pragma once

#include <string>
#include <vector>

namespace collsel::common {

class TextTable {
 public:
  enum class Align { left, right };

  // One header per column; `align` per column (missing entries are left-aligned).
  TextTable(std::vector<std::string> headers, std::vector<Align> align);

  // Rows shorter than the header are padded with empty cells.
  void add_row(std::vector<std::string> cells);

  // Header, then rows; columns separated by two spaces, every line prefixed with `indent` and
  // ending in '\n', no trailing spaces. The last column is not padded (it may be a long reason).
  [[nodiscard]] std::string render(const std::string& indent = "") const;

 private:
  std::vector<std::string> headers_;
  std::vector<Align> align_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace collsel::common

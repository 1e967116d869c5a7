// `collsel fit-signature`: reads measured All-to-All completion times from a CSV file and fits the
// contention signature (gamma, delta, M) of seed 000 with models::alltoall::fit_signature.
// The CSV format and the output: docs/TOOLS.md, "collsel fit-signature".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "models/alltoall/signature_fit.hpp"
#include "models/diagnostic.hpp"

namespace collsel::tools::fit_signature {

struct Row {
  int line = 0;  // 1-based line of the CSV file
  models::alltoall::Sample sample;
};

struct CsvRead {
  std::vector<Row> rows;    // empty when an error made the file unusable
  Diagnostics diagnostics;  // warnings (unused columns), then at most one error
};

// A header line naming the columns n, m_bytes and seconds in any order (case-insensitive; other
// columns are ignored with a warning), then one row per measurement. Blank lines and lines whose
// first non-blank character is '#' are skipped. Stops at the first error, which names the line.
CsvRead read_samples_csv(std::string_view text, std::string_view source);

struct Result {
  std::string source;
  models::alltoall::Hockney hockney;
  std::vector<Row> rows;
  models::alltoall::SignatureFit fit;  // fit.error empty
};

std::string format_text(const Result& r);
std::string format_json(const Result& r);

}  // namespace collsel::tools::fit_signature

// The report's "top call sites by time" (mpiP's aggregate time per call site): every rank's time
// in a collective, summed per call site and collective, over the trace `call` records (each
// rank's own actual_s, not the merged call's maximum) and the `summary` records (their sums).
// Sites are grouped by the texts of their symbolised frames, so one source line is one site on
// every rank, whatever the address each rank's ASLR gave it.
#pragma once

#include <vector>

#include "tools/logs/log_reader.hpp"
#include "tools/report/report.hpp"
#include "tools/logs/symbolize.hpp"

namespace collsel::tools {

// One row per (site, coll), sorted by time_s, largest first. Records without a stack (stack_depth
// 0, and summary overflow entries) group under the site "(no call site)".
std::vector<report::CallSiteRow> call_site_rows(const logs::RunLog& log, Symbolizer& sym);

}  // namespace collsel::tools

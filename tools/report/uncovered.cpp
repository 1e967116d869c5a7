// The report's "what collsel did not see" section: the collectives collsel does not serve, from
// the ranks' `uncovered` records, and the share of the measured collective time collsel served
// (report.hpp, "UncoveredRow" and "Coverage").
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "common/log_schema.hpp"
#include "tools/report/run_stats.hpp"

namespace collsel::report {

std::string_view uncovered_timing(const UncoveredRow& u) {
  if (u.reason == logs::schema::kReasonBeforeServing) {
    return "before serve_from_call, run by the MPI library";
  }
  return u.timing == "whole" ? "whole call" : "initiation only, not in the share";
}

namespace detail {

void make_coverage(const logs::RunLog& log, Report& r) {
  Coverage& c = r.coverage;
  c = Coverage{};
  c.counted = !log.ranks.empty() &&
              std::all_of(log.ranks.begin(), log.ranks.end(),
                          [](const logs::RunHeader& h) { return h.uncovered_counted; });
  for (const Total& t : r.totals) {
    (t.algorithm == "native" || t.algorithm == "*" ? c.native_s : c.served_s) += t.time_s;
  }
  // Per function and reason: the largest per-rank count and time (per-rank sums are all a rank
  // knows).
  std::map<std::pair<std::string, std::string>, UncoveredRow> rows;
  std::map<std::pair<std::string, std::string>, std::set<int>> ranks;
  for (const logs::UncoveredRecord& u : log.uncovered) {
    const std::pair key{u.function, u.reason};
    UncoveredRow& row = rows[key];
    row.function = u.function;
    row.timing = u.timing;
    row.reason = u.reason;
    row.calls = std::max(row.calls, u.calls);
    row.time_s = std::max(row.time_s, u.time_s);
    ranks[key].insert(u.world_rank);
  }
  r.uncovered.clear();
  for (auto& [key, row] : rows) {
    row.ranks = static_cast<int>(ranks[key].size());
    if (row.reason == logs::schema::kReasonBeforeServing) {
      // Intercepted and left to the MPI library: with the native calls, not the uncovered ones.
      c.before_serving_s += row.time_s;
      c.native_s += row.time_s;
    } else {
      (row.timing == "whole" ? c.uncovered_s : c.initiation_s) += row.time_s;
    }
    r.uncovered.push_back(std::move(row));
  }
  std::stable_sort(r.uncovered.begin(), r.uncovered.end(),
                   [](const UncoveredRow& a, const UncoveredRow& b) { return a.time_s > b.time_s; });
  const double seen = c.served_s + c.native_s + c.uncovered_s;
  c.served_share = c.counted && seen > 0.0 ? c.served_s / seen : std::nan("");
}

}  // namespace detail
}  // namespace collsel::report

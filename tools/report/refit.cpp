#include "tools/report/refit.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "common/duration_format.hpp"
#include "common/text_table.hpp"

namespace collsel::report {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Pair {
  double predicted;
  double actual;
};

}  // namespace

Refit refit(const std::vector<MergedCall>& calls, const models::ModelFile& model, int min_calls) {
  std::map<std::string, std::vector<Pair>> by_algorithm;
  for (const MergedCall& c : calls) {
    if (c.algorithm == "native" || !c.predicted_s || !(*c.predicted_s > 0.0) ||
        !(c.actual_s > 0.0) || c.ranks_disagree) {
      continue;
    }
    by_algorithm[c.algorithm].push_back({*c.predicted_s, c.actual_s});
  }
  Refit out;
  out.model = model;
  std::map<std::string, double> factors(model.corrections.begin(), model.corrections.end());
  for (const auto& [name, pairs] : by_algorithm) {
    RefitRow row;
    row.algorithm = name;
    row.calls = static_cast<int>(pairs.size());
    row.factor_before = model.correction(name);
    std::vector<double> ratios, before;
    for (const Pair& p : pairs) {
      ratios.push_back(p.actual / p.predicted);
      before.push_back(std::abs(p.predicted - p.actual) / p.actual);
    }
    row.median_abs_error_before = median(before);
    const double scale = median(ratios);
    row.fitted = row.calls >= min_calls && std::isfinite(scale) && scale > 0.0;
    const double applied = row.fitted ? scale : 1.0;
    std::vector<double> after;
    for (const Pair& p : pairs) after.push_back(std::abs(p.predicted * applied - p.actual) / p.actual);
    row.median_abs_error_after = median(after);
    // The file's bounds: a factor beyond them says recalibrate, not correct.
    row.factor = std::clamp(row.factor_before * applied, 1e-3, 1e3);
    if (row.fitted) factors[name] = row.factor;
    out.rows.push_back(row);
  }
  out.model.corrections.assign(factors.begin(), factors.end());
  return out;
}

std::string format_refit_text(const Refit& r) {
  common::TextTable t({"algorithm", "calls", "factor before", "factor", "median |E_rel| before",
                       "after"},
                      {common::TextTable::Align::left, common::TextTable::Align::right,
                       common::TextTable::Align::right, common::TextTable::Align::right,
                       common::TextTable::Align::right, common::TextTable::Align::right});
  for (const RefitRow& row : r.rows) {
    t.add_row({row.algorithm, std::to_string(row.calls), fmt::format("{:.3g}", row.factor_before),
               row.fitted ? fmt::format("{:.3g}", row.factor) : "(kept: too few calls)",
               common::format_percent(row.median_abs_error_before),
               common::format_percent(row.median_abs_error_after)});
  }
  return t.render("  ") +
         "  E_rel = (predicted - actual) / actual per call, actual = the slowest rank's time;\n"
         "  'after' applies the new factor to the same calls (an in-sample fit: judge it on\n"
         "  another run, e.g. collsel report on a run with the refitted model).\n";
}

}  // namespace collsel::report

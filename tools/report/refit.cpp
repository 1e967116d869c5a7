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

}  // namespace

Refit refit(const std::vector<MergedCall>& calls, const models::ModelFile& model,
            const RefitOptions& options) {
  Refit out;
  out.model = model;
  if (options.parameters) {
    out.parameters = fit_parameters(calls, model, options.min_calls);
    if (out.parameters->fitted) out.model = scale_parameters(model, out.parameters->scales);
  }
  const bool replayed = out.parameters && out.parameters->fitted;
  // Per algorithm: the logged prediction (for "before"), the prediction the factor applies to
  // (the logged one, or the replay on the new parameters without any factor) and the time.
  struct Triple {
    double logged;
    double base;
    double actual;
  };
  std::map<std::string, std::vector<Triple>> by_algorithm;
  for (const MergedCall& c : calls) {
    if (c.algorithm == "native" || !c.predicted_s || !(*c.predicted_s > 0.0) ||
        !(c.actual_s > 0.0) || c.ranks_disagree) {
      continue;
    }
    double base = *c.predicted_s;
    if (replayed) {
      const std::optional<double> p = replay(out.model, c);
      if (!p || !(*p > 0.0)) continue;
      base = *p;
    }
    by_algorithm[c.algorithm].push_back({*c.predicted_s, base, c.actual_s});
  }
  std::map<std::string, double> factors(out.model.corrections.begin(),
                                        out.model.corrections.end());
  const auto rel = [](double predicted, double actual) {
    return std::abs(predicted - actual) / actual;
  };
  // Old factors corrected the old parameters: after a parameter change they are dropped, and an
  // algorithm gets a factor again only where one still helps.
  if (replayed) factors.clear();
  for (const auto& [name, triples] : by_algorithm) {
    RefitRow row;
    row.algorithm = name;
    row.calls = static_cast<int>(triples.size());
    row.factor_before = model.correction(name);
    // The factor the base predictions carry (the old one when they are the logged predictions),
    // and the factor an algorithm keeps when no new one is fitted.
    const double carried = replayed ? 1.0 : row.factor_before;
    const auto median_error = [&](double factor) {
      std::vector<double> e;
      for (const Triple& t : triples) e.push_back(rel(t.base / carried * factor, t.actual));
      return median(e);
    };
    std::vector<double> ratios, before;
    for (const Triple& t : triples) {
      ratios.push_back(t.actual / t.base);
      before.push_back(rel(t.logged, t.actual));
    }
    row.median_abs_error_before = median(before);
    row.median_abs_error_parameters = median_error(carried);
    // The file's bounds: a factor beyond them says recalibrate, not correct.
    const double scale = median(ratios);
    const double candidate = std::clamp(carried * scale, 1e-3, 1e3);
    // A factor is written only where it cuts the error: the median ratio of calls the parameters
    // already predict within noise would only move the predictions around.
    row.fitted = options.factors && row.calls >= options.min_calls && std::isfinite(scale) &&
                 scale > 0.0 &&
                 median_error(candidate) < row.median_abs_error_parameters - 1e-3;
    row.factor = row.fitted ? candidate : carried;
    row.median_abs_error_after = median_error(row.factor);
    if (row.fitted) factors[name] = row.factor;
    out.rows.push_back(row);
  }
  out.model.corrections.assign(factors.begin(), factors.end());
  return out;
}

std::string format_refit_text(const Refit& r) {
  std::string out;
  if (r.parameters) {
    const ParameterFit& p = *r.parameters;
    out += fmt::format(
        "  parameters: {} calls of {} shapes replayed on the model", p.calls, p.shapes);
    if (p.simulated_calls > 0) {
      out += fmt::format(" ({} simulated calls left out: replaying them needs the placement)",
                         p.simulated_calls);
    }
    out += "\n";
    if (p.fitted) {
      out += fmt::format(
          "    latency (L, alpha) x{:.3g}, gap (g(m), beta) x{:.3g}, overhead (o_s, o_r) x{:.3g}\n"
          "    mean |ln(predicted / actual)| {:.3g} -> {:.3g} (x{:.3g} -> x{:.3g} off)\n",
          p.scales.latency, p.scales.gap, p.scales.overhead, p.error_before, p.error_after,
          std::exp(p.error_before), std::exp(p.error_after));
    } else {
      out += fmt::format(
          "    kept as calibrated: {} (mean |ln(predicted / actual)| {:.3g})\n",
          p.calls < 1 ? "no call could be replayed"
                      : "too few calls, or no scaling cut the error by 1 % or more",
          p.error_before);
    }
    if (p.replay_mismatches > 0) {
      out += fmt::format(
          "    warning: {} calls' logged predictions differ by more than 1 % from this model's:\n"
          "    the run was probably logged with another model (or another collsel version)\n",
          p.replay_mismatches);
    }
  }
  common::TextTable t({"algorithm", "calls", "factor before", "factor", "median |E_rel| before",
                       "parameters", "after"},
                      {common::TextTable::Align::left, common::TextTable::Align::right,
                       common::TextTable::Align::right, common::TextTable::Align::right,
                       common::TextTable::Align::right, common::TextTable::Align::right,
                       common::TextTable::Align::right});
  for (const RefitRow& row : r.rows) {
    t.add_row({row.algorithm, std::to_string(row.calls), fmt::format("{:.3g}", row.factor_before),
               row.fitted ? fmt::format("{:.3g}", row.factor)
                          : fmt::format("{:.3g} (kept)", row.factor),
               common::format_percent(row.median_abs_error_before),
               common::format_percent(row.median_abs_error_parameters),
               common::format_percent(row.median_abs_error_after)});
  }
  return out + t.render("  ") +
         "  E_rel = (predicted - actual) / actual per call, actual = the slowest rank's time;\n"
         "  'parameters': with the refitted parameters (and the old factor, if they were kept);\n"
         "  'after': with the new factor too; '(kept)': no factor fitted (too few calls, or one\n"
         "  would not cut the error); after a parameter change old factors are dropped. Both\n"
         "  are in-sample fits: judge the refitted model on another run (collsel report).\n";
}

}  // namespace collsel::report

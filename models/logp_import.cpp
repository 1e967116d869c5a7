#include "models/logp_import.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <sstream>

#include "common/text.hpp"

namespace collsel::models {
namespace {

constexpr std::string_view kHeader = "# LogP network performance data:";
constexpr std::string_view kLatency = "# Latency =";
constexpr std::string_view kFix = "logp_mpi writes TIME BYTES OS OS_MIN OS_CNFINT OR OR_MIN "
                                  "OR_CNFINT G per line, times in seconds";

std::string iso_date(long unix_time) {
  const std::time_t t = unix_time;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

ModelLoad import_logp_mpi(std::string_view text, std::string_view source) {
  ModelLoad out;
  const auto error = [&](int line, std::string problem, std::string fix) {
    out.diagnostics.push_back(
        {Diagnostic::Severity::error, std::string(source), line, std::move(problem), std::move(fix)});
  };
  ModelFile model;
  model.name = "imported from logp_mpi";
  std::optional<double> latency;
  std::vector<std::pair<int, plogp::SizePoint>> rows;
  long first_time = 0;
  double widest_ci = 0.0;

  std::istringstream in{std::string(text)};
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    const std::string_view s = text::trim(raw);
    if (s.empty()) continue;
    if (s.starts_with(kHeader)) {
      const std::string descr(text::trim(s.substr(kHeader.size())));
      if (!descr.empty()) model.name = descr;
      continue;
    }
    if (s.starts_with(kLatency)) {
      double l = 0;
      std::istringstream v{std::string(s.substr(kLatency.size()))};
      if (!(v >> l) || !std::isfinite(l) || l < 0) {
        error(line, "the latency is not a non-negative number of seconds",
              "write it as '# Latency = 0.0000123'");
        return out;
      }
      latency = l;
      continue;
    }
    if (s.front() == '#') continue;
    std::istringstream v{std::string(s)};
    long time = 0;
    long long bytes = 0;
    double f[7];
    bool ok = static_cast<bool>(v >> time >> bytes);
    for (double& x : f) ok = ok && static_cast<bool>(v >> x);
    std::string extra;
    if (!ok || (v >> extra)) {
      error(line, fmt::format("expected 9 columns, found '{}'", s), std::string(kFix));
      return out;
    }
    if (bytes < 0 || std::any_of(std::begin(f), std::end(f),
                                 [](double x) { return !std::isfinite(x) || x < 0; })) {
      error(line, "sizes and times must be finite and non-negative", std::string(kFix));
      return out;
    }
    // os, os_cnfint, or, or_cnfint: the interval half-widths relative to their values.
    if (f[0] > 0) widest_ci = std::max(widest_ci, f[2] / f[0]);
    if (f[3] > 0) widest_ci = std::max(widest_ci, f[5] / f[3]);
    if (first_time == 0 || (time > 0 && time < first_time)) first_time = time;
    rows.push_back({line, {static_cast<std::uint64_t>(bytes), f[6], f[0], f[3]}});
  }
  if (!latency) {
    error(0, "no '# Latency = L' line", "is this a logp_mpi parameter file (logp_save)?");
    return out;
  }
  if (rows.empty()) {
    error(0, "no measured sizes", std::string(kFix));
    return out;
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const auto& a, const auto& b) { return a.second.bytes < b.second.bytes; });
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (rows[i].second.bytes == rows[i - 1].second.bytes) {
      error(rows[i].first,
            fmt::format("size {} appears twice (also line {})", rows[i].second.bytes,
                        rows[i - 1].first),
            "keep one row per size");
      return out;
    }
  }
  model.plogp.latency_s = *latency;
  for (const auto& r : rows) model.plogp.table.push_back(r.second);
  model.description = fmt::format("imported from the logp_mpi file {}", source);
  model.provenance.command = fmt::format("collsel import-logp {}", source);
  if (first_time > 0) model.provenance.date = iso_date(first_time);
  model.provenance.notes = fmt::format(
      "pLogP after Kielmann et al., measured by logp_mpi; widest confidence interval of o_s/o_r: "
      "{:.1f} % of its value; no eager limit known",
      100.0 * widest_ci);
  if (auto bad = model.plogp.invalid_reason()) {
    error(0, *bad, std::string(kFix));
    return out;
  }
  out.model = std::move(model);
  return out;
}

}  // namespace collsel::models

// The report's text, CSV and JSON (docs/TOOLS.md, "Reading a collsel report"): how each section
// of a built Report (report.cpp) is printed. The HTML page is html_report.cpp.
#include "tools/report/report.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "common/duration_format.hpp"
#include "common/size_parse.hpp"
#include "common/text_table.hpp"
#include "tools/report/call_sites.hpp"

namespace collsel::report {
namespace {

// Ordered: keys come out in the documented order, which people reading the JSON appreciate.
using json = nlohmann::ordered_json;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();


// ---- formatting helpers ----------------------------------------------------------------------

// "587 KiB": a total of many calls' bytes is read for its magnitude, unlike a call's exact size.
std::string approximate_size(std::uint64_t bytes) {
  constexpr std::array<std::string_view, 4> kUnits{"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  for (value /= 1024.0; value >= 1024.0 && unit + 1 < kUnits.size(); value /= 1024.0) ++unit;
  return fmt::format("{:.3g} {}", value, kUnits[unit]);
}

// Savings carry their sign: "+1.20 ms" saved, "-300 us" lost.
std::string signed_duration(double seconds) {
  const std::string text = common::format_duration(seconds);
  return seconds > 0.0 ? "+" + text : text;
}

std::string list_or_none(const std::vector<std::string>& values) {
  return values.empty() ? std::string("(unknown)") : fmt::format("{}", fmt::join(values, ", "));
}

json number_or_null(double v) { return std::isnan(v) ? json(nullptr) : json(v); }
json text_or_null(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

// RFC 4180: quote a cell only when it holds a separator, a quote or a line break.
std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// One CSV cell from the JSON value of the same column, so the two formats cannot drift apart:
// null is an empty cell, a list is its items joined with ';', a number its shortest exact text.
std::string csv_value(const json& v) {
  if (v.is_null()) return {};
  if (v.is_string()) return csv_cell(v.get<std::string>());
  if (v.is_array()) {
    std::vector<std::string> items;
    for (const json& item : v) {
      items.push_back(item.is_string() ? item.get<std::string>() : item.dump());
    }
    return csv_cell(fmt::format("{}", fmt::join(items, ";")));
  }
  return v.dump();
}

// The CSV of one section: the keys of `header_row` (a row of the section, for its keys only), then
// one line per row.
std::string csv_table(const json& header_row, const json& rows) {
  std::vector<std::string> names;
  for (const auto& item : header_row.items()) names.push_back(item.key());
  std::string out = fmt::format("{}\n", fmt::join(names, ","));
  for (const json& row : rows) {
    std::vector<std::string> cells;
    for (const auto& item : row.items()) cells.push_back(csv_value(item.value()));
    out += fmt::format("{}\n", fmt::join(cells, ","));
  }
  return out;
}

// ---- one JSON object per row of each section (CSV columns are the same keys) -----------------

json row_json(const Row& row) {
  return {{"coll", row.coll},
          {"algorithm", row.algorithm},
          {"bytes", row.bytes},
          {"comm_size", row.comm_size},
          {"calls", row.calls},
          {"incomplete_calls", row.incomplete_calls},
          {"segment_bytes", row.segment_bytes},
          {"rungs", row.rungs},
          {"mean_actual_s", row.mean_actual_s},
          {"min_actual_s", row.min_actual_s},
          {"max_actual_s", row.max_actual_s},
          {"predicted_calls", row.predicted_calls},
          {"mean_predicted_s", number_or_null(row.mean_predicted_s)},
          {"mean_rel_error", number_or_null(row.mean_rel_error)},
          {"mean_abs_rel_error", number_or_null(row.mean_abs_rel_error)}};
}

json total_json(const Total& t) {
  return {{"coll", t.coll},         {"algorithm", t.algorithm}, {"calls", t.calls},
          {"time_s", t.time_s},     {"share", t.share},         {"bytes", t.bytes}};
}

json frame_json(const tools::Frame& f) {
  return {{"pc", f.pc},          {"function", f.function}, {"file", f.file},
          {"line", f.line},      {"object", f.object},     {"offset", f.offset}};
}

// In CSV a site's frames are one cell: their texts, innermost first, joined with ';'.
enum class Target { json, csv };

json call_site_json(const CallSiteRow& c, Target target) {
  json frames = json::array();
  for (const tools::Frame& f : c.frames) {
    frames.push_back(target == Target::csv ? json(f.text()) : frame_json(f));
  }
  return {{"site", c.site},     {"frames", frames},   {"coll", c.coll},
          {"calls", c.calls},   {"time_s", c.time_s}, {"mean_s", c.mean_s},
          {"min_s", c.min_s},   {"max_s", c.max_s},   {"algorithms", c.algorithms},
          {"ranks", c.ranks}};
}

json call_site_to_json(const CallSiteRow& c) { return call_site_json(c, Target::json); }
json call_site_to_csv(const CallSiteRow& c) { return call_site_json(c, Target::csv); }

json error_json(const ErrorRow& e) {
  return {{"coll", e.coll},
          {"algorithm", e.algorithm},
          {"bytes_lo", e.bucket.lo},
          {"bytes_hi", e.bucket.hi},
          {"comm_size", e.comm_size},
          {"calls", e.calls},
          {"predicted_calls", e.predicted_calls},
          {"mean_actual_s", e.mean_actual_s},
          {"mean_predicted_s", number_or_null(e.mean_predicted_s)},
          {"mean_rel_error", number_or_null(e.mean_rel_error)},
          {"mean_abs_rel_error", number_or_null(e.mean_abs_rel_error)},
          {"source", e.source}};
}

json saving_json(const SavingRow& s) {
  return {{"coll", s.coll},
          {"comm_size", s.comm_size},
          {"bytes_lo", s.bucket.lo},
          {"bytes_hi", s.bucket.hi},
          {"algorithm", s.algorithm},
          {"calls", s.calls},
          {"actual_s", s.actual_s},
          {"native_s", number_or_null(s.native_s)},
          {"saved_s", number_or_null(s.saved_s)},
          {"native_calls", s.native_calls},
          {"native_basis", text_or_null(s.native_basis)},
          {"native_note", s.native_note}};
}

json estimate_json(const EstimateRow& e) {
  return {{"coll", e.coll},
          {"comm_size", e.comm_size},
          {"bytes_lo", e.bucket.lo},
          {"bytes_hi", e.bucket.hi},
          {"algorithm", e.algorithm},
          {"calls", e.calls},
          {"actual_s", e.actual_s},
          {"mean_bytes", e.mean_bytes},
          {"native_algorithm", text_or_null(e.native_algorithm)},
          {"native_predicted_s", number_or_null(e.native_predicted_s)},
          {"ran_predicted_s", number_or_null(e.ran_predicted_s)},
          {"ratio", number_or_null(e.ratio)},
          {"estimated_native_s", number_or_null(e.native_s)},
          {"estimated_saved_s", number_or_null(e.saved_s)},
          {"how", e.how}};
}

json uncovered_json(const UncoveredRow& u) {
  return {{"function", u.function}, {"timing", u.timing}, {"calls", u.calls},
          {"time_s", u.time_s},     {"ranks", u.ranks},   {"reason", u.reason}};
}

json ending_json(const RankEnding& e) {
  return {{"world_rank", e.world_rank}, {"host", e.host},
          {"ending", e.ending},         {"code", e.code},
          {"how", e.how},               {"call_records", e.call_records},
          {"unwritten_calls", e.unwritten_calls}, {"summarised_calls", e.summarised_calls},
          {"summaries_recovered", e.summaries_recovered}};
}

json coverage_json(const Coverage& c) {
  return {{"counted", c.counted},
          {"served_s", c.served_s},
          {"native_s", c.native_s},
          {"before_serving_s", c.before_serving_s},
          {"uncovered_s", c.uncovered_s},
          {"initiation_s", c.initiation_s},
          {"served_share", number_or_null(c.served_share)}};
}

template <typename T, typename ToJson>
json rows_json(const std::vector<T>& rows, ToJson to_json) {
  json out = json::array();
  for (const T& row : rows) out.push_back(to_json(row));
  return out;
}

// ---- text ------------------------------------------------------------------------------------

using A = common::TextTable::Align;

// "0-3,7": world ranks, runs collapsed, so a 1,024-rank job fits a line.
std::string rank_list(const std::vector<int>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[j]);
    i = j + 1;
  }
  return out;
}

// How each rank ended, one line per ending: "ended:     MPI_Abort (code 3): rank 1".
std::string text_endings(const Report& r) {
  std::map<std::string, std::vector<int>> by_how;
  for (const RankEnding& e : r.endings) by_how[e.how].push_back(e.world_rank);
  std::string out = "  ended:     ";
  bool first = true;
  for (const auto& [how, ranks] : by_how) {
    if (!first) out += "\n             ";
    first = false;
    out += fmt::format("{}: rank{} {}", how, ranks.size() == 1 ? "" : "s", rank_list(ranks));
  }
  if (r.endings.empty()) out += "(no rank file)";
  return out + '\n';
}

std::string text_header(const Report& r) {
  std::string out = fmt::format("collsel report: run {}\n", r.run_id);
  out += fmt::format("  directory: {}\n", r.dir);
  out += fmt::format("  ranks:     {} ({} rank files) on {} host(s): {}\n", r.world_size,
                     r.rank_files, r.hosts.size(), list_or_none(r.hosts));
  out += fmt::format("  model:     {}\n", list_or_none(r.models));
  out += fmt::format("  config:    {}\n", list_or_none(r.configs));
  out += fmt::format("  collsel:   {}\n", list_or_none(r.collsel_versions));
  out += fmt::format("  level:     {}", list_or_none(r.levels));
  if (r.summarised_calls > 0) {
    out += fmt::format(" ({} per-rank calls in summary records, {} of them in overflow entries)",
                       r.summarised_calls, r.overflow_calls);
  }
  out += '\n';
  if (r.sampled_calls > 0) {
    out += fmt::format("  traces:    sampled: the first {} calls per call site and shape on each "
                       "rank ([log] traces_per_site); {} later per-rank calls are in summary "
                       "records, counted in the totals, call sites, errors and savings but not in "
                       "the per-size rows\n",
                       list_or_none(r.traces_per_site), r.sampled_calls);
  }
  out += text_endings(r);
  out += fmt::format("  calls:     {} traced collective calls ({} call records over all ranks)\n",
                     r.calls, r.records);
  out += fmt::format("  baseline:  {}\n",
                     r.baseline.empty() ? std::string("none (--baseline: a run with the native "
                                                      "collectives, measured)")
                                        : r.baseline);
  out += fmt::format("  estimates: {}\n", r.estimate_model.empty()
                                                ? std::string("none (no model given)")
                                                : r.estimate_model +
                                                      "; for the model-estimates section only");
  return out;
}

std::string text_totals(const Report& r) {
  common::TextTable table({"coll", "algorithm", "calls", "time", "share", "mean", "bytes"},
                         {A::left, A::left, A::right, A::right, A::right, A::right, A::right});
  std::int64_t calls = 0;
  for (const Total& t : r.totals) {
    calls += t.calls;
    table.add_row({t.coll, t.algorithm, std::to_string(t.calls), common::format_duration(t.time_s),
                   common::format_percent(t.share),
                   common::format_duration(t.calls > 0 ? t.time_s / static_cast<double>(t.calls)
                                                      : kNaN),
                   approximate_size(t.bytes)});
  }
  table.add_row({"all", "", std::to_string(calls), common::format_duration(r.total_time_s)});
  return "measured time per collective and algorithm (a call's time is its slowest rank's):\n" +
         table.render("  ");
}

std::string text_call_sites(const Report& r) {
  common::TextTable table({"#", "site", "coll", "calls", "time", "mean", "min", "max", "ranks",
                          "algorithms"},
                         {A::right, A::left, A::left, A::right, A::right, A::right, A::right,
                          A::right, A::right, A::left});
  for (std::size_t i = 0; i < r.call_sites.size(); ++i) {
    const CallSiteRow& c = r.call_sites[i];
    table.add_row({std::to_string(i + 1), c.site, c.coll, std::to_string(c.calls),
                   common::format_duration(c.time_s), common::format_duration(c.mean_s),
                   common::format_duration(c.min_s), common::format_duration(c.max_s),
                   std::to_string(c.ranks), fmt::format("{}", fmt::join(c.algorithms, ","))});
    // The callers, one line each, so a site called from several places reads as its stack.
    for (std::size_t f = 1; f < c.frames.size(); ++f) {
      table.add_row({"", "  <- " + c.frames[f].text()});
    }
  }
  std::string out =
      "top call sites (time summed over the ranks that called from there: rank-seconds; mean,\n"
      "min, max per call and rank):\n" + table.render("  ");
  if (r.call_sites_total > r.call_sites.size()) {
    out += fmt::format("  ({} more call sites: --top N shows more)\n",
                       r.call_sites_total - r.call_sites.size());
  }
  return out;
}

std::string text_errors(const Report& r) {
  common::TextTable table({"coll", "algorithm", "size", "P", "calls", "actual", "predicted",
                          "E_rel", "|E_rel|", "source"},
                         {A::left, A::left, A::right, A::right, A::right, A::right, A::right,
                          A::right, A::right, A::left});
  for (const ErrorRow& e : r.errors) {
    table.add_row({e.coll, e.algorithm, bucket_cell(e.bucket), std::to_string(e.comm_size),
                   std::to_string(e.calls), common::format_duration(e.mean_actual_s),
                   common::format_duration(e.mean_predicted_s),
                   common::format_signed_percent(e.mean_rel_error),
                   common::format_percent(e.mean_abs_rel_error), e.source});
  }
  return "predicted vs actual, per algorithm and size (trace: mean over calls; summary: error of\n"
         "the means, the slowest rank's mean time per call):\n" + table.render("  ");
}

// Measured only: the headline total when some shape was measured, else that nothing was and how.
std::string text_savings(const Report& r) {
  if (r.measured_saving_rows == 0) {
    return fmt::format("time saved against the native collective: not measured\n  {}\n",
                       r.saving_basis);
  }
  common::TextTable table({"coll", "P", "size", "algorithm", "calls", "actual", "native", "saved",
                          "native calls"},
                         {A::left, A::right, A::right, A::left, A::right, A::right, A::right,
                          A::right, A::right});
  std::string notes;
  for (const SavingRow& s : r.savings) {
    table.add_row({s.coll, std::to_string(s.comm_size), bucket_cell(s.bucket), s.algorithm,
                   std::to_string(s.calls), common::format_duration(s.actual_s),
                   common::format_duration(s.native_s), signed_duration(s.saved_s),
                   s.native_calls > 0 ? std::to_string(s.native_calls) : std::string("-")});
    if (s.native_basis != "measured") {
      notes += fmt::format("    {} P={} {}: {}\n", s.coll, s.comm_size, bucket_cell(s.bucket),
                           s.native_note);
    }
  }
  return fmt::format(
      "time saved against the native collective, measured (positive: collsel was faster; "
      "native:\nthe mean measured native call of the same shape x the calls):\n{}"
      "  saved (measured): {} over {} of {} call shape(s)\n  basis: {}\n{}{}",
      table.render("  "), signed_duration(r.saved_measured_s), r.measured_saving_rows,
      r.savings.size(), r.saving_basis, notes.empty() ? "" : "  not measured:\n", notes);
}

// Apart from the measurements, and named for what they are.
std::string text_estimates(const Report& r) {
  common::TextTable table({"coll", "P", "size", "algorithm", "calls", "measured", "native choice",
                          "x ratio", "est. native", "est. saved"},
                         {A::left, A::right, A::right, A::left, A::right, A::right, A::left,
                          A::right, A::right, A::right});
  std::string how;
  int with_estimate = 0;
  for (const EstimateRow& e : r.estimates) {
    if (!std::isnan(e.saved_s)) ++with_estimate;
    table.add_row({e.coll, std::to_string(e.comm_size), bucket_cell(e.bucket), e.algorithm,
                   std::to_string(e.calls), common::format_duration(e.actual_s),
                   e.native_algorithm.empty() ? std::string("-") : e.native_algorithm,
                   std::isnan(e.ratio) ? std::string("-") : fmt::format("{:.3g}", e.ratio),
                   common::format_duration(e.native_s), signed_duration(e.saved_s)});
    how += fmt::format("    {} P={} {}: {}\n", e.coll, e.comm_size, bucket_cell(e.bucket), e.how);
  }
  return fmt::format(
      "MODEL ESTIMATES, not measurements, for the shapes with no native call measured (model:\n"
      "{}).\n"
      "native choice: {}.\n"
      "est. native = the measured time of collsel's calls x ratio, where ratio = the model's\n"
      "prediction for the registered algorithm closest to the library's own choice / its\n"
      "prediction for what ran, both per call at the calls' mean size:\n{}"
      "  estimated saved (model): {} over {} of {} shape(s)\n  how each was computed:\n{}"
      "  {} To measure instead: --baseline.\n",
      r.estimate_model, r.estimate_rules, table.render("  "), signed_duration(r.saved_estimated_s),
      with_estimate, r.estimates.size(), how, r.estimate_limits);
}

// The served share and the collectives collsel does not serve, all measured.
std::string text_uncovered(const Report& r) {
  const Coverage& c = r.coverage;
  std::string out = fmt::format(
      "collective time collsel served (measured: Bcast, Scatter and Alltoall each call's slowest\n"
      "rank; the collectives collsel does not serve, their largest per-rank time):\n"
      "  served by collsel's algorithms:          {}\n"
      "  intercepted, run by the MPI library:     {}\n",
      common::format_duration(c.served_s), common::format_duration(c.native_s));
  if (c.before_serving_s > 0.0) {
    out += fmt::format(
        "    of which before [runtime] serve_from_call: {} (counted, not traced)\n",
        common::format_duration(c.before_serving_s));
  }
  if (!c.counted) {
    return out + "  collectives collsel does not serve:      not counted (a shim that does not "
                 "count them:\n  an older collsel or the SMPI build), so the share is unknown\n";
  }
  out += fmt::format("  collectives collsel does not serve:      {}\n  share served:  {}\n",
                     common::format_duration(c.uncovered_s),
                     common::format_percent(c.served_share));
  if (std::none_of(r.uncovered.begin(), r.uncovered.end(),
                   [](const UncoveredRow& u) { return u.reason.empty(); })) {
    out += "  (no collective collsel does not serve was called)\n";
    if (r.uncovered.empty()) return out;
  }
  common::TextTable table({"function", "calls", "time", "ranks", "timing"},
                         {A::left, A::right, A::right, A::right, A::left});
  for (const UncoveredRow& u : r.uncovered) {
    table.add_row({u.function, std::to_string(u.calls), common::format_duration(u.time_s),
                   std::to_string(u.ranks), std::string(uncovered_timing(u))});
  }
  return out + table.render("  ") +
         "  initiation only: a non-blocking or persistent call's start; its completion, inside\n"
         "  MPI_Wait/MPI_Test or MPI_Start, is not counted.\n";
}

std::string text_rows(const Report& r) {
  common::TextTable table(
      {"coll", "algorithm", "bytes", "P", "calls", "segment", "rung", "actual", "predicted",
       "E_rel", "|E_rel|"},
      {A::left, A::left, A::right, A::right, A::right, A::right, A::left, A::right, A::right,
       A::right, A::right});
  for (const Row& row : r.rows) {
    table.add_row({row.coll, row.algorithm, common::format_size(row.bytes),
                   std::to_string(row.comm_size), std::to_string(row.calls),
                   segment_cell(row.segment_bytes), fmt::format("{}", fmt::join(row.rungs, ",")),
                   common::format_duration(row.mean_actual_s),
                   common::format_duration(row.mean_predicted_s),
                   common::format_signed_percent(row.mean_rel_error),
                   common::format_percent(row.mean_abs_rel_error)});
  }
  return "traced calls by exact size:\n" + table.render("  ") +
         "  actual: mean over calls of the slowest rank's time; predicted: mean model prediction;\n"
         "  E_rel = (predicted - actual) / actual, mean over calls (negative: model optimistic);\n"
         "  |E_rel|: mean of |E_rel|. '-': no prediction (native, or no model).\n";
}

std::string text_footer(const Report& r) {
  std::string out;
  if (!r.problems.empty()) {
    out += fmt::format("\nproblems reading the logs ({}):\n", r.problems.size());
    for (const auto& p : r.problems) out += fmt::format("  {}\n", p);
  }
  for (const auto& w : r.warnings) out += fmt::format("\nWARNING: {}\n", w);
  return out;
}

}  // namespace

std::string segment_cell(const std::vector<std::uint64_t>& segments) {
  if (segments.empty() || (segments.size() == 1 && segments.front() == 0)) return "-";
  if (segments.size() == 1) return common::format_size(segments.front());
  return fmt::format("{}..{}", common::format_size(segments.front()),
                     common::format_size(segments.back()));
}

// "0 B", "1 B", "[1 KiB, 2 KiB)": a power-of-two bucket reads best half-open.
std::string bucket_cell(const Bucket& b) {
  if (b.lo == b.hi) return common::format_size(b.lo);
  if (b.hi == std::numeric_limits<std::uint64_t>::max()) {
    return fmt::format("[{}, 16 EiB)", common::format_size(b.lo));
  }
  return fmt::format("[{}, {})", common::format_size(b.lo), common::format_size(b.hi + 1));
}

namespace {
constexpr std::array<std::pair<std::string_view, Section>, 8> kSections{{
    {"rows", Section::rows},
    {"totals", Section::totals},
    {"call_sites", Section::call_sites},
    {"errors", Section::errors},
    {"savings", Section::savings},
    {"estimates", Section::estimates},
    {"uncovered", Section::uncovered},
    {"endings", Section::endings},
}};
}  // namespace

std::optional<Section> section_from_name(std::string_view name) {
  for (const auto& [n, s] : kSections) {
    if (n == name) return s;
  }
  return std::nullopt;
}

std::vector<std::string> section_names() {
  std::vector<std::string> names;
  for (const auto& entry : kSections) names.emplace_back(entry.first);
  return names;
}

std::string format_text(const Report& r) {
  std::string out = text_header(r);
  if (r.totals.empty()) {
    out += "\n  (no call or summary records)\n";
  } else {
    out += '\n' + text_totals(r);
    if (!r.call_sites.empty()) out += '\n' + text_call_sites(r);
    out += '\n' + text_errors(r);
    if (!r.savings.empty()) out += '\n' + text_savings(r);
    if (!r.estimates.empty()) out += '\n' + text_estimates(r);
    out += '\n' + text_uncovered(r);
  }
  if (!r.rows.empty()) out += '\n' + text_rows(r);
  out += text_footer(r);
  return out;
}

std::string format_csv(const Report& r, Section section) {
  const auto table = [](const auto& rows, const auto& to_json) {
    using T = typename std::decay_t<decltype(rows)>::value_type;
    return csv_table(to_json(T{}), rows_json(rows, to_json));
  };
  switch (section) {
    case Section::totals: return table(r.totals, total_json);
    case Section::call_sites:
      return table(r.call_sites, call_site_to_csv);
    case Section::errors: return table(r.errors, error_json);
    case Section::savings: return table(r.savings, saving_json);
    case Section::estimates: return table(r.estimates, estimate_json);
    case Section::uncovered: return table(r.uncovered, uncovered_json);
    case Section::endings: return table(r.endings, ending_json);
    case Section::rows: break;
  }
  return table(r.rows, row_json);
}

std::string format_json(const Report& r) {
  json disagreements = json::array();
  for (const Disagreement& d : r.disagreements) {
    disagreements.push_back({{"comm", d.comm}, {"seq", d.seq}, {"algorithms", d.algorithms}});
  }
  const json doc = {
      {"run", r.run_id},
      {"dir", r.dir},
      {"world_size", r.world_size},
      {"rank_files", r.rank_files},
      {"hosts", r.hosts},
      {"models", r.models},
      {"configs", r.configs},
      {"collsel_versions", r.collsel_versions},
      {"levels", r.levels},
      {"records", r.records},
      {"calls", r.calls},
      {"summarised_calls", r.summarised_calls},
      {"overflow_calls", r.overflow_calls},
      {"traces_per_site", r.traces_per_site},
      {"sampled_calls", r.sampled_calls},
      {"estimate_model", text_or_null(r.estimate_model)},
      {"estimate_rules", text_or_null(r.estimate_rules)},
      {"baseline", text_or_null(r.baseline)},
      {"rows", rows_json(r.rows, row_json)},
      {"totals", rows_json(r.totals, total_json)},
      {"total_time_s", r.total_time_s},
      {"call_sites", rows_json(r.call_sites, call_site_to_json)},
      {"call_sites_total", r.call_sites_total},
      {"errors", rows_json(r.errors, error_json)},
      {"saving_basis", r.saving_basis},
      {"savings", rows_json(r.savings, saving_json)},
      {"measured_saving_rows", r.measured_saving_rows},
      {"saved_measured_s", number_or_null(r.saved_measured_s)},
      {"estimates", rows_json(r.estimates, estimate_json)},
      {"saved_estimated_s", number_or_null(r.saved_estimated_s)},
      {"uncovered", rows_json(r.uncovered, uncovered_json)},
      {"coverage", coverage_json(r.coverage)},
      {"endings", rows_json(r.endings, ending_json)},
      {"disagreeing_calls", r.disagreeing_calls},
      {"disagreements", disagreements},
      {"shape_mismatch_calls", r.shape_mismatch_calls},
      {"incomplete_calls", r.incomplete_calls},
      {"problems", r.problems},
      {"warnings", r.warnings}};
  return doc.dump(2) + "\n";
}

std::string format(const Report& r, Format f, Section section) {
  switch (f) {
    case Format::csv: return format_csv(r, section);
    case Format::json: return format_json(r);
    case Format::text: break;
  }
  return format_text(r);
}

}  // namespace collsel::report

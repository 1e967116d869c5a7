// The HTML report: one self-contained page, each of the report's sections a table function here
// (the same sections report_format.cpp prints as text, CSV and JSON) and the plots inlined as SVG.
// Near 700 lines because it is the one place that knows the page's markup; the data are report.cpp's.
#include "tools/plots/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "common/duration_format.hpp"
#include "common/file_write.hpp"
#include "tools/plots/gnuplot.hpp"
#include "tools/plots/plots.hpp"
#include "common/size_parse.hpp"

namespace collsel::html {
namespace {

namespace fs = std::filesystem;
// µs rather than the terminal's "us".
std::string format_duration(double seconds) { return plots::duration_label(seconds); }
using common::format_size;

// ---- SVG clean-up ----------------------------------------------------------------------------

// Removes every `<tag ...>...</tag>` element (non-nested, as gnuplot writes <title> and <desc>).
void erase_elements(std::string& s, std::string_view tag) {
  const std::string open = fmt::format("<{}", tag);
  const std::string close = fmt::format("</{}>", tag);
  for (std::size_t at = s.find(open); at != std::string::npos; at = s.find(open, at)) {
    const std::size_t end = s.find(close, at);
    if (end == std::string::npos) break;
    s.erase(at, end + close.size() - at);
  }
}

// Removes the prologue before <svg: the XML declaration and the DOCTYPE, whose DTD is a URL.
void erase_prologue(std::string& s) {
  const std::size_t svg = s.find("<svg");
  if (svg != std::string::npos) s.erase(0, svg);
}

// Removes ` xmlns="..."` and ` xmlns:xlink="..."` attributes (any quote).
void erase_xmlns(std::string& s) {
  for (std::size_t at = s.find("xmlns"); at != std::string::npos; at = s.find("xmlns", at)) {
    const std::size_t eq = s.find('=', at);
    if (eq == std::string::npos || eq + 1 >= s.size()) break;
    const char quote = s[eq + 1];
    const std::size_t end = s.find(quote, eq + 2);
    if ((quote != '"' && quote != '\'') || end == std::string::npos) break;
    std::size_t start = at;
    while (start > 0 && (s[start - 1] == ' ' || s[start - 1] == '\n' || s[start - 1] == '\t')) {
      --start;
    }
    s.replace(start, end + 1 - start, " ");
  }
}

void replace_all(std::string& s, std::string_view from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
}

// ---- formatting ------------------------------------------------------------------------------

std::string esc(std::string_view s) { return html_escape(s); }

std::string join_escaped(const std::vector<std::string>& items, std::string_view empty = "-") {
  if (items.empty()) return std::string(empty);
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + esc(i);
  return out;
}

// E_rel with its sign, tinted when it is large: a bad row should be seen before it is read.
std::string error_cell(double rel) {
  if (!std::isfinite(rel)) return "<td class=\"num\">-</td>";
  const char* cls = std::abs(rel) >= 0.5 ? " bad" : std::abs(rel) >= 0.2 ? " fair" : "";
  return fmt::format("<td class=\"num{}\">{}</td>", cls, common::format_signed_percent(rel));
}

std::string abs_error_cell(double rel) {
  if (!std::isfinite(rel)) return "<td class=\"num\">-</td>";
  const char* cls = rel >= 0.5 ? " bad" : rel >= 0.2 ? " fair" : "";
  return fmt::format("<td class=\"num{}\">{}</td>", cls, common::format_percent(rel));
}

std::string num_cell(std::string_view text) {
  return fmt::format("<td class=\"num\">{}</td>", esc(text));
}

// The algorithm's name after a swatch of its colour in the plots.
std::string algorithm_cell(std::string_view algorithm) {
  return fmt::format("<td><span class=\"swatch\" style=\"background:{}\"></span><code>{}</code></td>",
                     plots::algorithm_colour(algorithm), esc(algorithm));
}

struct Column {
  std::string_view title;
  bool numeric = false;
  std::string_view help = {};  // the header's tooltip
};

std::string table_head(std::initializer_list<Column> columns) {
  std::string out = "<table>\n<thead><tr>";
  for (const Column& c : columns) {
    out += fmt::format("<th{}{}>{}</th>", c.numeric ? " class=\"num\"" : "",
                       c.help.empty() ? "" : fmt::format(" title=\"{}\"", esc(c.help)),
                       esc(c.title));
  }
  return out + "</tr></thead>\n<tbody>\n";
}

constexpr std::string_view kTableEnd = "</tbody>\n</table>\n";

std::string section(std::string_view id, std::string_view title, std::string_view intro,
                    const std::string& body) {
  return fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n<p class=\"intro\">{}</p>\n{}</section>\n",
                     id, esc(title), intro, body);
}

std::string empty_note(std::string_view text) {
  return fmt::format("<p class=\"empty\">{}</p>\n", esc(text));
}

// ---- the page's parts ------------------------------------------------------------------------

// Mean |E_rel| over every call with a prediction: the one number for "how good is the model here".
double overall_abs_error(const report::Report& r) {
  double sum = 0.0;
  long calls = 0;
  for (const auto& row : r.rows) {
    if (row.predicted_calls <= 0 || !std::isfinite(row.mean_abs_rel_error)) continue;
    sum += row.mean_abs_rel_error * row.predicted_calls;
    calls += row.predicted_calls;
  }
  return calls > 0 ? sum / static_cast<double>(calls) : NAN;
}

std::string header(const report::Report& r) {
  // From the totals, which count trace calls and summary records alike: a summary-level run has
  // no merged calls, yet every call is in its totals.
  std::int64_t calls = 0;
  for (const auto& t : r.totals) calls += t.calls;
  // Only a measurement makes a headline; without one the card says so and how to get one.
  std::string saved = "not measured";
  std::string saved_key = fmt::format("saved against the native collectives: {}",
                                      esc(r.saving_basis));
  if (r.measured_saving_rows > 0) {
    saved = r.saved_measured_s >= 0 ? format_duration(r.saved_measured_s)
                                    : "&minus;" + esc(format_duration(-r.saved_measured_s));
    // The card's short form of saving_basis (the Savings section has it in full).
    saved_key = fmt::format(
        "saved against the native collectives, measured: native calls of the same shapes in {} "
        "({} of {} call shapes; <a href=\"#savings\">details</a>)",
        r.baseline.empty() ? "this run" : "the baseline run", r.measured_saving_rows,
        r.savings.size());
  }
  std::string out = fmt::format(
      "<header>\n<h1>collsel report</h1>\n<p class=\"run\">run <code>{}</code></p>\n"
      "<div class=\"cards\">\n"
      "<div class=\"card\"><div class=\"v\">{}</div><div class=\"k\">collective calls (one per "
      "call, whatever its ranks)</div></div>\n"
      "<div class=\"card\"><div class=\"v\">{}</div><div class=\"k\">time in collectives, "
      "measured (each call's slowest rank)</div></div>\n"
      "<div class=\"card\"><div class=\"v\">{}</div><div class=\"k\">mean |E_rel| of the "
      "model's predictions against the measured times</div></div>\n"
      "<div class=\"card\" id=\"saved-card\"><div class=\"v\">{}</div><div class=\"k\">{}</div>"
      "</div>\n"
      "<div class=\"card\" id=\"served-card\"><div class=\"v\">{}</div><div class=\"k\">{}</div>"
      "</div>\n"
      "</div>\n",
      esc(r.run_id.empty() ? "(unknown)" : r.run_id), calls,
      r.totals.empty() ? "-" : esc(format_duration(r.total_time_s)),
      esc(common::format_percent(overall_abs_error(r))), saved, saved_key,
      r.coverage.counted ? esc(common::format_percent(r.coverage.served_share)) : "not counted",
      r.coverage.counted
          ? "of the measured collective time was served by collsel (the rest: the MPI library's "
            "own routines, <a href=\"#uncovered\">below</a>)"
          : "share served unknown: these logs' shim did not count the collectives collsel does "
            "not serve");
  out += "<dl class=\"facts\">\n";
  const auto fact = [&out](std::string_view k, const std::string& v_html) {
    out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", esc(k), v_html);
  };
  fact("directory", esc(r.dir));
  fact("ranks", fmt::format("{} ({} rank file{} read)", r.world_size, r.rank_files,
                            r.rank_files == 1 ? "" : "s"));
  fact(r.hosts.size() == 1 ? "host" : "hosts", join_escaped(r.hosts));
  fact("model", join_escaped(r.models));
  fact("config", join_escaped(r.configs));
  fact("collsel", join_escaped(r.collsel_versions));
  fact("records", fmt::format("{} call records", r.records));
  if (r.sampled_calls > 0) {
    fact("traces", fmt::format("sampled: the first {} calls per call site and shape on each rank "
                               "([log] traces_per_site); {} later per-rank calls are in summary "
                               "records (in the totals, not in the per-size tables)",
                               join_escaped(r.traces_per_site), r.sampled_calls));
  }
  out += "</dl>\n";
  if (r.models.size() > 1 || r.configs.size() > 1) {
    out += "<p class=\"alert\">The ranks did not all use the same model or config file: look "
           "there first.</p>\n";
  }
  return out + "</header>\n";
}

std::string alerts(const report::Report& r) {
  std::string out;
  if (r.disagreeing_calls > 0) {
    std::string first;
    for (const auto& d : r.disagreements) {
      first += fmt::format("<li><code>comm {} seq {}</code>: {}</li>", esc(d.comm), d.seq,
                           join_escaped(d.algorithms));
    }
    out += fmt::format(
        "<div class=\"alert\"><strong>WARNING: RANKS DISAGREED</strong> on {} call{}: ranks ran "
        "different algorithms or segment sizes for the same call. This must never happen; please "
        "report it with the log directory.<ul>{}</ul></div>\n",
        r.disagreeing_calls, r.disagreeing_calls == 1 ? "" : "s", first);
  }
  for (const auto& w : r.warnings) {
    out += fmt::format("<div class=\"warn\">{}</div>\n", esc(w));
  }
  return out;
}

std::string figures(const std::vector<PlotBlock>& plots) {
  std::string out = "<section id=\"plots\">\n<h2>Plots</h2>\n";
  for (const PlotBlock& p : plots) {
    out += fmt::format("<figure class=\"plot\" id=\"plot-{}\">\n", esc(p.id));
    if (!p.svg.empty()) {
      out += inline_svg(p.svg, p.id + "-");
      out += "\n";
    } else {
      out += fmt::format("<div class=\"missing\">Plot not drawn: {}</div>\n", esc(p.note));
    }
    out += fmt::format("<figcaption>{}</figcaption>\n</figure>\n", p.caption);
  }
  return out + "</section>\n";
}

std::string totals_table(const report::Report& r) {
  if (r.totals.empty()) return empty_note("No collective calls.");
  std::string out = table_head({{"collective"}, {"algorithm"}, {"calls", true},
                                {"time", true, "trace calls: slowest rank; summaries: largest "
                                               "per-rank sum"},
                                {"share", true}, {"bytes", true}});
  for (const auto& t : r.totals) {
    out += fmt::format(
        "<tr><td>{}</td>{}{}{}<td class=\"num\"><span class=\"bar\" style=\"width:{:.0f}px\">"
        "</span>{}</td>{}</tr>\n",
        esc(t.coll), algorithm_cell(t.algorithm), num_cell(std::to_string(t.calls)),
        num_cell(format_duration(t.time_s)), std::clamp(t.share, 0.0, 1.0) * 60.0,
        esc(common::format_percent(t.share)), num_cell(format_size(t.bytes)));
  }
  return out + std::string(kTableEnd);
}

std::string call_sites_table(const report::Report& r) {
  if (r.call_sites.empty()) return empty_note("No call sites in this run's logs.");
  std::string out = table_head({{"call site"}, {"collective"}, {"calls", true},
                                {"ranks", true}, {"time", true, "summed over ranks"},
                                {"mean", true, "per call and rank"}, {"min", true},
                                {"max", true}, {"algorithms"}});
  for (const auto& s : r.call_sites) {
    // The callers, innermost first, shown on demand: the innermost frame names the site.
    std::string site = fmt::format("<code>{}</code>", esc(s.site));
    if (s.frames.size() > 1) {
      std::string callers;
      for (std::size_t i = 1; i < s.frames.size(); ++i) {
        callers += fmt::format("<li><code>{}</code></li>", esc(s.frames[i].text()));
      }
      site = fmt::format("<details><summary>{}</summary><ol class=\"frames\">{}</ol></details>",
                         site, callers);
    }
    out += fmt::format("<tr><td>{}</td><td>{}</td>{}{}{}{}{}{}<td>{}</td></tr>\n", site,
                       esc(s.coll), num_cell(std::to_string(s.calls)),
                       num_cell(std::to_string(s.ranks)), num_cell(format_duration(s.time_s)),
                       num_cell(format_duration(s.mean_s)), num_cell(format_duration(s.min_s)),
                       num_cell(format_duration(s.max_s)), join_escaped(s.algorithms));
  }
  return out + std::string(kTableEnd);
}

std::string errors_table(const report::Report& r) {
  if (r.errors.empty()) return empty_note("No calls to compare with a prediction.");
  std::string out = table_head(
      {{"collective"}, {"algorithm"}, {"size"}, {"P", true}, {"calls", true},
       {"predicted calls", true, "calls with a prediction and a measured time > 0"},
       {"measured", true, "mean"}, {"predicted", true, "mean"},
       {"E_rel", true, "mean of (predicted - measured) / measured; negative: model optimistic"},
       {"|E_rel|", true, "mean of |E_rel|"}, {"from"}});
  for (const auto& e : r.errors) {
    out += fmt::format("<tr><td>{}</td>{}<td>{}</td>{}{}{}{}{}{}{}<td>{}</td></tr>\n",
                       esc(e.coll), algorithm_cell(e.algorithm), esc(report::bucket_cell(e.bucket)),
                       num_cell(std::to_string(e.comm_size)), num_cell(std::to_string(e.calls)),
                       num_cell(std::to_string(e.predicted_calls)),
                       num_cell(format_duration(e.mean_actual_s)),
                       num_cell(format_duration(e.mean_predicted_s)), error_cell(e.mean_rel_error),
                       abs_error_cell(e.mean_abs_rel_error), esc(e.source));
  }
  return out + std::string(kTableEnd);
}

// "+1.2 ms" in green, "−300 µs" in red, "-" when there is no figure.
std::string saved_cell(double saved_s) {
  if (!std::isfinite(saved_s)) return "<td class=\"num\">-</td>";
  return saved_s >= 0 ? fmt::format("<td class=\"num good\">{}</td>", esc(format_duration(saved_s)))
                      : fmt::format("<td class=\"num bad\">&minus;{}</td>",
                                    esc(format_duration(-saved_s)));
}

std::string savings_table(const report::Report& r) {
  if (r.savings.empty()) return empty_note("No calls to compare with the native collectives.");
  std::string out = fmt::format("<p class=\"basis\">{}{}</p>\n",
                                r.measured_saving_rows > 0 ? "Basis: " : "",
                                esc(r.saving_basis));
  if (r.measured_saving_rows == 0) return out;
  out += table_head(
      {{"collective"}, {"P", true}, {"size"}, {"algorithm"}, {"calls", true},
       {"time", true, "measured total over the calls"},
       {"native", true, "measured: the mean native call of this shape x the calls"},
       {"saved", true, "native - time; negative: collsel lost time"},
       {"native calls measured", true}, {"note"}});
  for (const auto& s : r.savings) {
    out += fmt::format("<tr><td>{}</td>{}<td>{}</td>{}{}{}{}{}{}<td>{}</td></tr>\n", esc(s.coll),
                       num_cell(std::to_string(s.comm_size)), esc(report::bucket_cell(s.bucket)),
                       algorithm_cell(s.algorithm), num_cell(std::to_string(s.calls)),
                       num_cell(format_duration(s.actual_s)), num_cell(format_duration(s.native_s)),
                       saved_cell(s.saved_s),
                       num_cell(s.native_calls > 0 ? std::to_string(s.native_calls) : "-"),
                       esc(s.native_note));
  }
  return out + std::string(kTableEnd);
}

std::string estimates_table(const report::Report& r) {
  if (r.estimates.empty()) {
    return empty_note(r.estimate_model.empty()
                          ? "No model given: no estimates."
                          : "None: every shape collsel served was measured against native calls.");
  }
  std::string out = table_head(
      {{"collective"}, {"P", true}, {"size"}, {"algorithm"}, {"calls", true},
       {"measured", true, "measured total of collsel's calls"},
       {"native choice", false, "the registered algorithm closest to the MPI library's own choice, as the model prices it"},
       {"ratio", true, "model's prediction for the library's choice / for what ran, per call"},
       {"estimated native", true, "measured x ratio: an estimate, not a measurement"},
       {"estimated saved", true, "estimated native - measured"}, {"how"}});
  for (const auto& e : r.estimates) {
    out += fmt::format(
        "<tr><td>{}</td>{}<td>{}</td>{}{}{}<td>{}</td>{}{}{}<td>{}</td></tr>\n", esc(e.coll),
        num_cell(std::to_string(e.comm_size)), esc(report::bucket_cell(e.bucket)),
        algorithm_cell(e.algorithm), num_cell(std::to_string(e.calls)),
        num_cell(format_duration(e.actual_s)),
        e.native_algorithm.empty() ? "-" : fmt::format("<code>{}</code>", esc(e.native_algorithm)),
        num_cell(std::isfinite(e.ratio) ? fmt::format("x{:.3g}", e.ratio) : "-"),
        num_cell(format_duration(e.native_s)), saved_cell(e.saved_s), esc(e.how));
  }
  out += std::string(kTableEnd);
  if (std::isfinite(r.saved_estimated_s)) {
    out += fmt::format("<p>Estimated total (model, not measured): {}</p>\n",
                       r.saved_estimated_s >= 0
                           ? esc(format_duration(r.saved_estimated_s)) + " saved"
                           : esc(format_duration(-r.saved_estimated_s)) + " lost");
  }
  return out;
}

std::string uncovered_table(const report::Report& r) {
  const report::Coverage& c = r.coverage;
  std::string out = fmt::format(
      "<p>Served by collsel's algorithms: {}; Bcast, Scatter and Alltoall calls run by the MPI "
      "library: {}{}; collectives collsel does not serve: {}.</p>\n",
      esc(format_duration(c.served_s)), esc(format_duration(c.native_s)),
      c.before_serving_s > 0.0
          ? fmt::format(" (of which before [runtime] serve_from_call, counted, not traced: {})",
                        esc(format_duration(c.before_serving_s)))
          : std::string(),
      c.counted ? esc(format_duration(c.uncovered_s)) : "not counted");
  if (!c.counted || r.uncovered.empty()) {
    return out + empty_note(c.counted ? "No collective collsel does not serve was called."
                                      : "Not counted by the shim that wrote these logs.");
  }
  out += table_head({{"function"}, {"calls", true, "the largest per-rank count"},
                     {"time", true, "the largest per-rank time"}, {"ranks", true},
                     {"timing", false, "initiation: a non-blocking or persistent call's start"}});
  for (const auto& u : r.uncovered) {
    out += fmt::format("<tr><td><code>{}</code></td>{}{}{}<td>{}</td></tr>\n", esc(u.function),
                       num_cell(std::to_string(u.calls)), num_cell(format_duration(u.time_s)),
                       num_cell(std::to_string(u.ranks)), report::uncovered_timing(u));
  }
  return out + std::string(kTableEnd);
}

std::string endings_table(const report::Report& r) {
  if (r.endings.empty()) return empty_note("No rank file.");
  std::string out = table_head({{"rank", true}, {"host"}, {"ended by"},
                                {"call records", true},
                                {"unwritten calls", true, "counted, but in no record"}});
  for (const auto& e : r.endings) {
    out += fmt::format("<tr>{}<td>{}</td><td>{}</td>{}{}</tr>\n",
                       num_cell(std::to_string(e.world_rank)), esc(e.host), esc(e.how),
                       num_cell(std::to_string(e.call_records)),
                       num_cell(std::to_string(e.unwritten_calls)));
  }
  return out + std::string(kTableEnd);
}

std::string rows_table(const report::Report& r) {
  if (r.rows.empty()) return empty_note("No traced calls.");
  std::string out = table_head(
      {{"collective"}, {"algorithm"}, {"bytes", true}, {"P", true}, {"calls", true},
       {"segment", true}, {"rung", false, "what decided"},
       {"measured", true, "mean of each call's slowest rank"}, {"predicted", true, "mean"},
       {"E_rel", true, "mean of (predicted - measured) / measured"},
       {"|E_rel|", true, "mean of |E_rel|"}});
  for (const auto& row : r.rows) {
    const std::string segment = report::segment_cell(row.segment_bytes);
    out += fmt::format(
        "<tr><td>{}</td>{}{}{}{}{}<td>{}</td>{}{}{}{}</tr>\n", esc(row.coll),
        algorithm_cell(row.algorithm), num_cell(format_size(row.bytes)),
        num_cell(std::to_string(row.comm_size)),
        num_cell(row.incomplete_calls > 0
                     ? fmt::format("{} ({} incomplete)", row.calls, row.incomplete_calls)
                     : std::to_string(row.calls)),
        num_cell(segment), join_escaped(row.rungs), num_cell(format_duration(row.mean_actual_s)),
        num_cell(format_duration(row.mean_predicted_s)), error_cell(row.mean_rel_error),
        abs_error_cell(row.mean_abs_rel_error));
  }
  return out + std::string(kTableEnd);
}

std::string problems_list(const report::Report& r) {
  if (r.problems.empty()) return {};
  std::string items;
  for (const auto& p : r.problems) items += fmt::format("<li><code>{}</code></li>\n", esc(p));
  return fmt::format("<section id=\"problems\">\n<h2>Problems</h2>\n<details><summary>{} line{} "
                     "or file{} the reader skipped</summary>\n<ul>\n{}</ul>\n</details>\n"
                     "</section>\n",
                     r.problems.size(), r.problems.size() == 1 ? "" : "s",
                     r.problems.size() == 1 ? "" : "s", items);
}

// Inline, and nothing but inline: the page must open without a network.
constexpr std::string_view kStyle = R"(
:root { --fg: #1f2328; --muted: #59636e; --line: #d8dee4; --soft: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; color: var(--fg); background: #fff;
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Liberation Sans", sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 28px 32px 56px; }
h1 { font-size: 28px; margin: 0; }
h2 { font-size: 20px; margin: 36px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
code { font-family: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 0.9em; }
.run { color: var(--muted); margin: 2px 0 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 12px; margin: 18px 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; background: var(--soft); }
.card .v { font-size: 24px; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .k { color: var(--muted); font-size: 13px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 18px; margin: 0; font-size: 14px; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
nav { margin: 18px 0 0; font-size: 14px; }
nav a { color: #0b5cad; text-decoration: none; margin-right: 16px; }
.alert { border-left: 4px solid #cf222e; background: #ffebe9; padding: 10px 14px; border-radius: 4px; margin: 14px 0; }
.warn { border-left: 4px solid #bf8700; background: #fff8c5; padding: 8px 14px; border-radius: 4px; margin: 10px 0; }
.intro { color: var(--muted); margin: 4px 0 12px; max-width: 90ch; }
figure.plot { margin: 0 0 24px; border: 1px solid var(--line); border-radius: 8px; padding: 14px; }
/* Natural size (gnuplot's pixels, the size its fonts were laid out for), shrunk on narrow screens. */
figure.plot svg { display: block; max-width: 100%; height: auto; margin: 0 auto; }
figure.plot figcaption { color: var(--muted); font-size: 14px; margin: 10px 4px 0; max-width: 95ch; }
.missing { padding: 48px 24px; text-align: center; color: var(--muted); background: var(--soft);
  border: 1px dashed #b0b8c0; border-radius: 6px; }
table { border-collapse: collapse; width: 100%; font-size: 13.5px; }
th, td { padding: 5px 10px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: var(--soft); font-weight: 600; white-space: nowrap; }
th[title] { text-decoration: underline dotted #9aa4ae; cursor: help; }
tbody tr:hover { background: #f3f7fb; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.bad { color: #b42318; font-weight: 600; }
.fair { color: #9a6700; }
.good { color: #1a7f37; }
.swatch { display: inline-block; width: 11px; height: 11px; border-radius: 2px; margin-right: 7px; vertical-align: -1px; }
.bar { display: inline-block; height: 9px; background: #4e79a7; opacity: .55; border-radius: 2px; margin-right: 8px; }
.empty { color: var(--muted); font-style: italic; }
details summary { cursor: pointer; }
ol.frames { margin: 4px 0 0; padding-left: 22px; color: var(--muted); }
footer { margin-top: 40px; color: var(--muted); font-size: 13px; }
)";

// Runs once the page is laid out (it is the last element): marks each figure whose plot really
// rendered (its SVG has a size and a plotted series with drawn elements) and writes the count on
// <body>, where tests/tools/html_chromium_test.py reads it from headless Chromium's DOM.
constexpr std::string_view kRenderCheck = R"(
(function () {
  var figures = document.querySelectorAll('figure.plot');
  var rendered = 0;
  figures.forEach(function (figure) {
    var svg = figure.querySelector('svg');
    var ok = false;
    if (svg) {
      var box = svg.getBoundingClientRect();
      var series = svg.querySelectorAll('g[id*="gnuplot_plot_"]');
      for (var i = 0; i < series.length && !ok; ++i) {
        var b = series[i].getBBox();
        ok = b.width > 0 && b.height > 0 && series[i].querySelectorAll('path, use, rect, polygon').length > 0;
      }
      ok = ok && box.width > 0 && box.height > 0;
    }
    figure.setAttribute('data-rendered', ok ? 'yes' : 'no');
    if (ok) rendered += 1;
  });
  document.body.setAttribute('data-plots-expected', String(figures.length));
  document.body.setAttribute('data-plots-rendered', String(rendered));
})();
)";

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string inline_svg(std::string_view svg, std::string_view id_prefix) {
  std::string s(svg);
  erase_prologue(s);
  erase_xmlns(s);
  // SVG 2's plain href, which browsers take on <use>: without the xlink prefix (whose
  // declaration went with the xmlns attributes) the fragment stays namespace-well-formed XML.
  replace_all(s, "xlink:href=", "href=");
  erase_elements(s, "title");
  erase_elements(s, "desc");
  for (const std::string_view q : {"\"", "'"}) {
    replace_all(s, fmt::format(" id={}", q), fmt::format(" id={}{}", q, id_prefix));
    replace_all(s, fmt::format("href={}#", q), fmt::format("href={}#{}", q, id_prefix));
  }
  replace_all(s, "url(#", fmt::format("url(#{}", id_prefix));
  return s;
}

std::string render_html(const report::Report& report, const std::vector<PlotBlock>& plots) {
  std::string body;
  body += header(report);
  body += "<nav><a href=\"#plots\">Plots</a><a href=\"#totals\">Totals</a><a "
          "href=\"#call-sites\">Call sites</a><a href=\"#errors\">Errors</a><a "
          "href=\"#savings\">Savings (measured)</a><a href=\"#estimates\">Model estimates</a><a "
          "href=\"#uncovered\">Not served</a><a href=\"#rows\">Calls by shape</a><a "
          "href=\"#endings\">Endings</a></nav>\n";
  body += alerts(report);
  body += figures(plots);
  body += section("totals", "Time per collective and algorithm",
                  "Where the collective time went. A traced call counts its slowest rank's time; "
                  "a summary record its largest per-rank sum.",
                  totals_table(report));
  body += section("call-sites", "Call sites",
                  "The program's calls by call site (the first frame outside MPI and collsel), "
                  "busiest first; time is summed over the ranks that called from there. Open a "
                  "site to see its callers.",
                  call_sites_table(report));
  body += section("errors", "Prediction error by size",
                  "Per algorithm, power-of-two size bucket and communicator size P. "
                  "E_rel = (predicted &minus; measured) / measured: negative when the call took "
                  "longer than the model said (optimistic). Tinted: |E_rel| &ge; 20%, bold red "
                  "&ge; 50%.",
                  errors_table(report));
  body += section("savings", "Savings against the native collectives, measured",
                  "What collsel's choice saved (or cost) against the MPI library's own "
                  "collective, where native calls of the same collective, size and communicator "
                  "size were measured (in this run or the <code>--baseline</code> run).",
                  savings_table(report));
  body += section("estimates", "Model estimates (not measurements)",
                  "For the shapes with no native call measured: the measured time of collsel's "
                  "calls multiplied by the model's ratio of its prediction for the MPI library's "
                  "own choice to its prediction for what ran, both per call at the calls' mean "
                  "size. As good as the model: compare its errors above. Native choice: " +
                      html_escape(report.estimate_rules) + ". " +
                      html_escape(report.estimate_limits),
                  estimates_table(report));
  body += section("uncovered", "What collsel did not see",
                  "The collective calls collsel does not serve (Allreduce, Alltoallv, the "
                  "non-blocking and persistent forms, ...), counted by pass-through wrappers "
                  "that leave them to the MPI library, with their measured time.",
                  uncovered_table(report));
  body += section("rows", "Calls by shape",
                  "One row per (collective, algorithm, bytes, P), as in <code>collsel "
                  "report</code>'s text output.",
                  rows_table(report));
  body += section("endings", "How each rank ended",
                  "From each rank's last log record: MPI_Finalize, exit() without it, MPI_Abort "
                  "(with its code) or a fatal signal. A rank whose log has no end record was cut "
                  "short: killed by SIGKILL (MPICH's launcher kills the other ranks so after one "
                  "rank's MPI_Abort); every call record it wrote before is kept.",
                  endings_table(report));
  body += problems_list(report);
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>collsel report {}</title>\n<style>{}</style>\n</head>\n<body>\n<main>\n{}"
      "<footer>Written by <code>collsel report --html</code>. Self-contained: the plots are "
      "inline SVG drawn by gnuplot; the page loads nothing.</footer>\n</main>\n"
      "<script>{}</script>\n</body>\n</html>\n",
      esc(report.run_id), kStyle, body, kRenderCheck);
}

HtmlResult write_html_report(const report::Report& report, const HtmlOptions& options) {
  HtmlResult result;
  result.index = options.out_dir / "index.html";
  std::error_code ec;
  fs::create_directories(options.out_dir, ec);
  if (ec) {
    result.diagnostics.push_back({Diagnostic::Severity::error, options.out_dir.string(), 0,
                                  fmt::format("cannot create the directory: {}", ec.message()),
                                  "choose another --html directory"});
    return result;
  }

  plots::MapOutcome map = plots::decision_map_for(&report, options.model_path,
                                                  options.config_path);
  result.diagnostics = std::move(map.diagnostics);
  const std::vector<std::pair<plots::PlotSource, std::string>> sources = {
      {plots::scatter_plot(report),
       "Each point is one collective call: across, the model's prediction; up, the measured "
       "time of its slowest rank. On the solid line the model was exact; between the dashed "
       "lines it was within a factor of 2. Points <strong>above</strong> the line took longer "
       "than predicted (the model is <strong>optimistic</strong>); points below were faster "
       "(pessimistic). Colour: the algorithm; shape: the collective (&#9679; Bcast, &#9650; "
       "Scatter, &#9632; Alltoall)."},
      {plots::error_by_size_plot(report),
       "Mean E_rel = (predicted &minus; measured) / measured per power-of-two size bucket, one "
       "line per algorithm and communicator size P. 0 is a perfect model; &minus;50% means the "
       "calls took twice as long as predicted. Large errors at the sizes that carry most of the "
       "time (see the tables) mean the model does not describe this machine there: recalibrate "
       "with <code>collsel-calibrate</code>, with the MPI settings of the run."},
      {plots::call_sites_plot(report),
       "Where the program spends its collective time: the busiest call sites (the first frame "
       "outside MPI and collsel), time summed over the ranks that called from there. Colour: the "
       "collective. The <a href=\"#call-sites\">table</a> lists every site with its callers."},
      {std::move(map.source),
       fmt::format("What the model chooses for every communicator size (up) and message size "
                   "(across), with {}: the same <code>decide()</code> the shim calls, root 0, no "
                   "placement (closed forms). Where the colour changes, the model switches "
                   "algorithm; <code>collsel explain --coll bcast -P 16 -m 64KiB</code> shows the "
                   "cost table behind one cell.",
                   esc(map.model_label.empty() ? "the model" : map.model_label))},
  };

  std::vector<PlotBlock> blocks;
  for (const auto& [source, caption] : sources) {
    PlotBlock block{std::string(plots::plot_kind_name(source.kind)), caption, {}, {}};
    plots::Rendered drawn = plots::render(source, plots::ImageFormat::svg, options.gnuplot);
    if (drawn.gnuplot_missing) {
      // Said once, not once per plot: the fix is the same for all of them.
      if (!result.gnuplot_missing) result.notes.push_back(drawn.error);
      result.gnuplot_missing = true;
      block.note = drawn.error;
    } else if (drawn.image.empty()) {
      block.note = drawn.error;
      result.notes.push_back(fmt::format("{}: {}", block.id, drawn.error));
    } else {
      block.svg = std::move(drawn.image);
      ++result.plots;
    }
    blocks.push_back(std::move(block));
  }

  if (const auto error =
          common::write_file_atomically(result.index.string(), render_html(report, blocks))) {
    result.diagnostics.push_back({Diagnostic::Severity::error, result.index.string(), 0, *error,
                                  "check the --html directory's permissions and free space"});
    return result;
  }
  result.written = true;
  return result;
}

}  // namespace collsel::html

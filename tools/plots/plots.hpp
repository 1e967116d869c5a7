// The report's pictures, drawn by gnuplot (`collsel plot`, and inlined by `collsel report --html`).
//
// Each plot is built in two steps so that what is plotted can be tested without a plotting
// program: a pure function turns a Report (or the model's decision grid) into a PlotSource, the
// data files and the gnuplot script that reads them; render() then runs gnuplot on it in a
// temporary directory and returns the SVG or PNG. gnuplot is a subprocess rather than a library:
// Debian's gnuplot-nox has the svg and pngcairo terminals and no X dependency, and a crash or a
// missing program costs one plot, never the report.
//
// One colour per algorithm everywhere (the scatter, the error plot, the decision map and the HTML
// tables' swatches), shared by the algorithms of the same shape in every collective (bcast.binomial
// and scatter.binomial), and one point shape per collective, so those stay apart in a mixed plot.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/diagnostic.hpp"
#include "selector/collective.hpp"
#include "tools/decisions/decision_grid.hpp"
#include "tools/report/report.hpp"

namespace collsel::plots {

enum class PlotKind { scatter, error_by_size, call_sites, decision_map };
inline constexpr std::array kPlotKinds{PlotKind::scatter, PlotKind::error_by_size,
                                       PlotKind::call_sites, PlotKind::decision_map};
// "scatter", "error_by_size", "call_sites", "decision_map": the file names of `collsel plot`, the
// values of its --kind, and the HTML figure ids ("plot-" + name).
std::string_view plot_kind_name(PlotKind k);
// A gnuplot string literal of `s`: single-quoted, quotes doubled, line breaks as spaces.
std::string gnuplot_string(std::string_view s);
std::optional<PlotKind> plot_kind_from_name(std::string_view name);

enum class ImageFormat { svg, png };
std::string_view image_extension(ImageFormat f);  // "svg", "png"

struct DataFile {
  std::string name;  // relative to gnuplot's working directory: "scatter.dat"
  std::string text;  // whitespace-separated columns, '#' comment lines, strings double-quoted
};

// A plot as gnuplot input. The script has no `set terminal`/`set output`: render() prepends them,
// so one source gives the SVG of the page and the PNG of `collsel plot --format png`.
struct PlotSource {
  PlotKind kind = PlotKind::scatter;
  std::vector<DataFile> data;
  std::string script;
  int width = 900;   // pixels
  int height = 560;
  std::string empty_reason;  // non-empty: nothing to plot (why, one sentence); script is empty
};

// Predicted (x) against measured (y) time of every merged trace call that has a prediction and an
// actual time > 0, log-log, one series per (collective, algorithm), with y = x and factor-of-2
// lines. scatter.dat: one line per such call, `"algorithm" predicted_s actual_s bytes comm_size`,
// blocks of one series separated by two blank lines (gnuplot's `index`).
PlotSource scatter_plot(const report::Report& report);

// Mean E_rel (%) per size bucket, one line per (collective, algorithm, comm size), from
// Report::errors. error_by_size.dat: `"series" x bucket_lo bucket_hi mean_rel_error_pct
// mean_abs_rel_error_pct predicted_calls`, x = log2(bucket_lo), -1 for the 0-byte bucket.
PlotSource error_by_size_plot(const report::Report& report);

// Horizontal bars of the rank-seconds spent at the `top` busiest call sites (Report::call_sites,
// already sorted), coloured by collective. call_sites.dat: `"label" time calls "coll" "value"`
// with time in the unit of the x axis, largest first.
PlotSource call_sites_plot(const report::Report& report, std::size_t top = 15);

// The model's choice over comm size x message size, one panel per collective, from
// tools::decision_grid. The axes are categorical (one equal cell per grid value, labelled with the
// value) because the grid's sizes are not evenly spaced.
using DecisionMap = tools::CollectiveGrid;
// decision_map.dat: per collective one block (`index` = position in `maps`), one line per cell in
// decision_grid order: `x_index y_index comm_size bytes "algorithm" rgb`.
PlotSource decision_map_plot(const std::vector<DecisionMap>& maps, const std::string& model_label);
// Every collective's map over `grid`, decided with `models` and `policy` as the shim would.
std::vector<DecisionMap> decision_maps(const tools::GridSpec& grid, const ModelSet& models,
                                       const Policy& policy);

// The decision map the page and `collsel plot` draw, with the model and config it was decided
// with: the files named here; else, when `report` is given and all its ranks used the same model
// (or config) file that still exists, that one, so the map shows what the run decided; else the
// embedded default model and the built-in policy. A file that is unusable gives no map (the
// diagnostics say why; `source.empty_reason` says so in one sentence).
struct MapOutcome {
  PlotSource source;
  std::string model_label;  // "model cluster.toml" / "the embedded default model"
  Diagnostics diagnostics;
};
MapOutcome decision_map_for(const report::Report* report,
                            const std::optional<std::string>& model_path,
                            const std::optional<std::string>& config_path,
                            const tools::GridSpec& grid = tools::default_grid());

// common::format_duration with "µs" for "us": terminals need ASCII to keep columns aligned, a
// picture or a web page does not.
std::string duration_label(double seconds);

// "#1f77b4": the colour of an algorithm (a registered name or "native") in every plot.
std::string algorithm_colour(std::string_view algorithm);

}  // namespace collsel::plots

// `collsel report --html OUT/`: one self-contained HTML page of a run's report. The plots
// (tools/plots.hpp, drawn by gnuplot) are inlined as SVG and the style is inline CSS, so the page
// opens from a file:// URL on a machine with no network, can be mailed or attached to a ticket as
// one file, and references no URL at all (tests/tools/html_chromium_test.py checks both).
//
// Without gnuplot the page still has every table; each plot's place says why it is missing and
// what to install, so a report is never lost to a missing plotting program.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/diagnostic.hpp"
#include "tools/report/report.hpp"

namespace collsel::html {

struct HtmlOptions {
  std::filesystem::path out_dir;           // created if missing; the page is out_dir/index.html
  // The model and config of the decision map, as `collsel explain` takes them. Empty: the file
  // every rank of the run used, when it is still there (the map then shows what the run decided),
  // else the embedded default model and the built-in policy (plots::decision_map_for).
  std::optional<std::string> model_path;
  std::optional<std::string> config_path;
  std::string gnuplot = "gnuplot";         // the program run to draw the plots (tests override)
};

struct HtmlResult {
  bool written = false;                    // index.html exists and is complete
  std::filesystem::path index;             // out_dir/index.html
  int plots = 0;                           // plots drawn (figures that hold an <svg>)
  // Why a plot is missing (gnuplot absent or failed, nothing to plot), one sentence each; the
  // page shows the same text in the plot's place. The command prints the gnuplot one as a hint.
  std::vector<std::string> notes;
  bool gnuplot_missing = false;            // the program could not be run at all
  Diagnostics diagnostics;                 // model/config problems, out_dir not writable
};

// Writes out_dir/index.html (through a temporary file renamed into place, so a failure never
// leaves half a page). A model or config file that is unusable does not stop the page: the
// decision map is replaced by a note and the diagnostics say why.
HtmlResult write_html_report(const report::Report& report, const HtmlOptions& options);

// The page itself, without running anything: the tests call it with hand-made plots.
struct PlotBlock {
  std::string id;        // stable: the figure's id is "plot-" + id (plots::plot_kind_name)
  std::string caption;   // how to read the plot
  std::string svg;       // gnuplot's SVG, as written; empty: not drawn
  std::string note;      // why not drawn (shown in the plot's place)
};
std::string render_html(const report::Report& report, const std::vector<PlotBlock>& plots);

// An SVG document made fit to sit inside an HTML page: no XML declaration or DOCTYPE, no xmlns
// attributes (the HTML parser puts <svg> in the SVG namespace itself; dropping them leaves the
// page without a single URL), SVG 2's href for xlink:href, no <title> tooltips, and every id and
// reference to one prefixed with `id_prefix`, because every gnuplot SVG defines the same ids.
std::string inline_svg(std::string_view svg, std::string_view id_prefix);

std::string html_escape(std::string_view text);

}  // namespace collsel::html

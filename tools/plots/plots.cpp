#include "tools/plots/plots.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "selector/catalog.hpp"
#include "common/duration_format.hpp"
#include "common/file_write.hpp"
#include "tools/decisions/model_loading.hpp"
#include "common/size_parse.hpp"

namespace collsel::plots {
namespace {

namespace fs = std::filesystem;

// Twenty strong colours, one per algorithm shape (colour_slot): matplotlib's tab10 without its
// grey (kept for `native`, "no choice") and with indigo for its pink (too pale for small points),
// then seven darker ones for bcast.scatter_allgather, bcast.split_binary and the shapes only
// All-to-All has, a light blue for alltoall.mesh2d, a dark orange for the nineteenth shape and a
// bluish green for bcast.scatter_doubling_allgather.
constexpr std::array<std::string_view, 20> kPalette{
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#393b79",
    "#bcbd22", "#17becf", "#637939", "#843c39", "#7b4173", "#e7ba52", "#5254a3", "#ad494a",
    "#8ca252", "#6baed6", "#e6550d", "#009e73"};
constexpr std::string_view kNativeColour = "#a0a0a0";

// Filled circle, triangle and square: a collective's point shape in mixed plots.
int collective_point_type(std::string_view coll) {
  if (coll == "scatter") return 9;
  if (coll == "alltoall") return 5;
  return 7;
}

std::string_view collective_colour(std::string_view coll) {
  if (coll == "scatter") return kPalette[1];
  if (coll == "alltoall") return kPalette[2];
  return kPalette[0];
}

// Position of a collective in kCollectives (unknown names last), for a stable series order.
std::size_t collective_order(std::string_view coll) {
  const auto c = collective_from_name(coll);
  if (!c) return kCollectives.size();
  return static_cast<std::size_t>(
      std::find(kCollectives.begin(), kCollectives.end(), *c) - kCollectives.begin());
}

// Registry position of an algorithm within its collective; names the registry does not know
// (a log from another version) come after.
std::size_t registry_index(std::string_view algorithm) {
  const std::string_view prefix = algorithm.substr(0, algorithm.find('.'));
  if (const auto c = collective_from_name(prefix)) {
    const auto algos = catalog(*c);
    for (std::size_t i = 0; i < algos.size(); ++i) {
      if (algos[i].name == algorithm) return i;
    }
  }
  return 1000;
}

// The colour slot of an algorithm: the position of its shape name (the part after the dot) among
// the distinct shape names of all collectives in registry order, so one tree shape has one colour
// in every collective (bcast.binomial and scatter.binomial) and different shapes never share one.
std::size_t colour_slot(std::string_view algorithm) {
  const std::size_t dot = algorithm.find('.');
  const std::string_view shape = dot == std::string_view::npos ? algorithm : algorithm.substr(dot + 1);
  std::vector<std::string_view> shapes;
  for (const Collective c : kCollectives) {
    for (const auto& a : catalog(c)) {
      const std::string_view s = a.name.substr(a.name.find('.') + 1);
      if (s == shape) return static_cast<std::size_t>(
          std::find(shapes.begin(), shapes.end(), s) - shapes.begin());
      if (std::find(shapes.begin(), shapes.end(), s) == shapes.end()) shapes.push_back(s);
    }
  }
  return shapes.size();  // unknown: past the palette, drawn grey
}

// A string field of a data file: double-quoted (gnuplot groups it into one column); gnuplot has
// no escape for '"' inside, and a newline would end the record, so both are replaced.
std::string data_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') {
      out += '\'';
    } else if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}


std::string shorten(std::string_view s, std::size_t max_chars) {
  if (s.size() <= max_chars) return std::string(s);
  return std::string(s.substr(0, max_chars - 3)) + "...";
}

// %.9g keeps nine significant digits: far finer than any timer, and the files stay short.
std::string num(double v) { return fmt::format("{:.9g}", v); }

std::string rgb_int(std::string_view hex) {
  return std::to_string(std::strtol(std::string(hex.substr(1)).c_str(), nullptr, 16));
}

// Settings shared by every plot: µ for the micro prefix of the %c format, thin light grid.
constexpr std::string_view kCommonSettings =
    "set encoding utf8\n"
    "set micro\n"
    "set datafile commentschars '#'\n"
    "set border 3 lc rgb '#555555'\n"
    "set tics nomirror textcolor rgb '#333333'\n"
    "set grid lc rgb '#e4e4e4' lw 1 dt 1\n"
    "set key noopaque\n"
    "set style textbox opaque fillcolor rgb '#30ffffff' noborder margins 3,2\n";

// The `plot` command, one clause a line (continued with a backslash) so the script reads well.
std::string plot_line(const std::vector<std::string>& clauses) {
  return fmt::format("plot {}\n", fmt::join(clauses, ", \\\n     "));
}

// A grey note in a corner of the graph, saying which side of the reference line means what.
std::string corner_note(int tag, std::string_view text, double x, double y, std::string_view align) {
  // On a translucent white box: legible over points, which still show through.
  return fmt::format("set label {} {} at graph {},{} {} front boxed textcolor rgb '#555555'\n",
                     tag, gnuplot_string(text), x, y, align);
}

// The key right of the graph, symbols after the text, as the scatter and the error plot use it.
constexpr std::string_view kKeyOutside =
    "set key outside right top Left reverse samplen 2 spacing 1.2\n";

// Tic marks at powers of two on an axis of log2(bytes), labelled as sizes ("4 KiB"), at most
// about 12 labels; -1 stands for the 0-byte bucket, labelled "0 B".
std::string size_tics(std::string_view axis, int lo_exp, int hi_exp) {
  const int first = std::max(lo_exp, 0);
  const int span = hi_exp - first;
  const int step = span <= 12 ? 1 : span <= 24 ? 2 : 4;
  std::vector<std::string> tics;
  if (lo_exp < 0) tics.push_back("'0 B' -1");
  for (int e = first; e <= hi_exp; e += step) {
    tics.push_back(fmt::format("{} {}", gnuplot_string(common::format_size(std::uint64_t{1} << e)), e));
  }
  return fmt::format("set {}tics ({})\n", axis, fmt::join(tics, ", "));
}

}  // namespace

// A string literal in the script: single-quoted, where gnuplot reads '' as one quote and no
// backslash escapes, so any title is safe.
std::string gnuplot_string(std::string_view s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'') {
      out += "''";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string_view plot_kind_name(PlotKind k) {
  switch (k) {
    case PlotKind::scatter: return "scatter";
    case PlotKind::error_by_size: return "error_by_size";
    case PlotKind::call_sites: return "call_sites";
    case PlotKind::decision_map: return "decision_map";
  }
  return "scatter";
}

std::optional<PlotKind> plot_kind_from_name(std::string_view name) {
  for (const PlotKind k : kPlotKinds) {
    if (plot_kind_name(k) == name) return k;
  }
  return std::nullopt;
}

std::string_view image_extension(ImageFormat f) { return f == ImageFormat::png ? "png" : "svg"; }

std::string duration_label(double seconds) {
  std::string text = common::format_duration(seconds);
  if (text.ends_with(" us")) text.replace(text.size() - 2, 2, "µs");
  return text;
}

std::string algorithm_colour(std::string_view algorithm) {
  const std::size_t i = colour_slot(algorithm);
  if (algorithm == kNativeName || i >= kPalette.size()) return std::string(kNativeColour);
  return std::string(kPalette[i]);
}

// ---- scatter ---------------------------------------------------------------------------------

PlotSource scatter_plot(const report::Report& report) {
  PlotSource src;
  src.kind = PlotKind::scatter;
  src.width = 880;
  src.height = 530;

  // Series in collective, then registry order; each holds the calls that can be compared.
  struct Series {
    std::string coll, algorithm;
    std::vector<const report::MergedCall*> calls;
  };
  std::map<std::tuple<std::size_t, std::size_t, std::string>, Series> by_key;
  double lo = HUGE_VAL, hi = 0.0;
  std::size_t points = 0;
  for (const auto& c : report.merged) {
    // Only points a log-log plot can place (a NaN or infinite time would break the axis range).
    if (!c.predicted_s || !(*c.predicted_s > 0.0) || !(c.actual_s > 0.0) ||
        !std::isfinite(*c.predicted_s) || !std::isfinite(c.actual_s)) {
      continue;
    }
    Series& s = by_key[{collective_order(c.coll), registry_index(c.algorithm), c.algorithm}];
    s.coll = c.coll;
    s.algorithm = c.algorithm;
    s.calls.push_back(&c);
    lo = std::min({lo, *c.predicted_s, c.actual_s});
    hi = std::max({hi, *c.predicted_s, c.actual_s});
    ++points;
  }
  if (points == 0) {
    src.empty_reason = report.merged.empty()
                           ? "no traced calls in this run (summary-level logs keep no per-call "
                             "times; run with [log] level = \"trace\" to get this plot)"
                           : "no traced call has a prediction (native calls, or no model)";
    return src;
  }
  // Whole decades around the data, the same on both axes so that y = x is the diagonal.
  double lo_axis = std::pow(10.0, std::floor(std::log10(lo)));
  double hi_axis = std::pow(10.0, std::ceil(std::log10(hi)));
  if (hi_axis <= lo_axis * 10.0) hi_axis = lo_axis * 100.0;

  std::string data = "# one line per merged call with a prediction; blocks: one series each\n"
                     "# algorithm predicted_s actual_s bytes comm_size\n";
  std::vector<std::string> clauses = {
      "x with lines lc rgb '#333333' lw 1.5 title 'predicted = measured'",
      "2*x with lines lc rgb '#9a9a9a' dt 2 title 'factor of 2'",
      "x/2 with lines lc rgb '#9a9a9a' dt 2 notitle"};
  int index = 0;
  for (const auto& [key, s] : by_key) {
    if (index > 0) data += "\n\n";
    for (const report::MergedCall* c : s.calls) {
      data += fmt::format("{} {} {} {} {}\n", data_string(c->algorithm), num(*c->predicted_s),
                          num(c->actual_s), c->bytes, c->comm_size);
    }
    // Semi-transparent ('#AARRGGBB', AA = transparency) so piles of equal calls show as darker.
    const std::string colour = "#50" + algorithm_colour(s.algorithm).substr(1);
    clauses.push_back(fmt::format(
        "'scatter.dat' index {} using 2:3 with points pt {} ps 1.5 lc rgb '{}' title {}", index,
        collective_point_type(s.coll), colour,
        gnuplot_string(fmt::format("{} ({} call{})", s.algorithm, s.calls.size(),
                              s.calls.size() == 1 ? "" : "s"))));
    ++index;
  }
  src.data.push_back({"scatter.dat", std::move(data)});

  src.script = std::string(kCommonSettings) +
               fmt::format("set title {}\n",
                           gnuplot_string(fmt::format("Predicted vs measured time per call ({} call{})",
                                                 points, points == 1 ? "" : "s"))) +
               "set logscale xy 10\n" +
               fmt::format("set xrange [{}:{}]\nset yrange [{}:{}]\n", num(lo_axis), num(hi_axis),
                           num(lo_axis), num(hi_axis)) +
               "set size square\n"
               "set format x '%.0s %cs'\n"
               "set format y '%.0s %cs'\n"
               "set mxtics 10\nset mytics 10\n"
               "set grid xtics ytics\n"
               "set xlabel 'predicted by the model'\n"
               "set ylabel 'measured (slowest rank)'\n" +
               std::string(kKeyOutside) +
               corner_note(1, "above the line: slower than predicted (model optimistic)", 0.02,
                           0.97, "left") +
               corner_note(2, "below: faster than predicted (model pessimistic)", 0.98, 0.03,
                           "right") +
               plot_line(clauses);
  return src;
}

// ---- error by size ---------------------------------------------------------------------------

PlotSource error_by_size_plot(const report::Report& report) {
  PlotSource src;
  src.kind = PlotKind::error_by_size;
  src.width = 900;

  struct Series {
    std::string coll, algorithm;
    int comm_size = 0;
    std::vector<const report::ErrorRow*> rows;
  };
  std::map<std::tuple<std::size_t, std::size_t, std::string, int>, Series> by_key;
  std::map<int, int> comm_sizes;  // -> dash type
  int lo_exp = 1 << 20, hi_exp = -1;
  for (const auto& r : report.errors) {
    if (r.predicted_calls <= 0 || !std::isfinite(r.mean_rel_error)) continue;
    Series& s = by_key[{collective_order(r.coll), registry_index(r.algorithm), r.algorithm,
                        r.comm_size}];
    s.coll = r.coll;
    s.algorithm = r.algorithm;
    s.comm_size = r.comm_size;
    s.rows.push_back(&r);
    comm_sizes.emplace(r.comm_size, 0);
    const int x = r.bucket.lo == 0 ? -1 : std::bit_width(r.bucket.lo) - 1;
    lo_exp = std::min(lo_exp, x);
    hi_exp = std::max(hi_exp, x);
  }
  if (by_key.empty()) {
    src.empty_reason = "no size bucket has a prediction to compare with (native calls, or no "
                       "model)";
    return src;
  }
  // The point shape is the collective's (as in the scatter) and the dash pattern the comm size's:
  // bcast.flat and scatter.flat share a colour, and one algorithm has a line per P.
  int next = 0;
  for (auto& [p, dash] : comm_sizes) dash = 1 + next++ % 5;

  std::string data = "# series x bucket_lo bucket_hi mean_rel_error_pct mean_abs_rel_error_pct "
                     "predicted_calls\n# x = log2(bucket_lo), -1 for the 0-byte bucket\n";
  std::vector<std::string> clauses;
  int index = 0;
  for (auto& [key, s] : by_key) {
    std::sort(s.rows.begin(), s.rows.end(), [](const auto* a, const auto* b) {
      return a->bucket.lo < b->bucket.lo;
    });
    const std::string title = fmt::format("{}, P = {}", s.algorithm, s.comm_size);
    if (index > 0) data += "\n\n";
    for (const report::ErrorRow* r : s.rows) {
      const int x = r->bucket.lo == 0 ? -1 : std::bit_width(r->bucket.lo) - 1;
      data += fmt::format("{} {} {} {} {} {} {}\n", data_string(title), x, r->bucket.lo,
                          r->bucket.hi, num(100.0 * r->mean_rel_error),
                          num(100.0 * r->mean_abs_rel_error), r->predicted_calls);
    }
    clauses.push_back(fmt::format(
        "'error_by_size.dat' index {} using 2:5 with linespoints pt {} ps 1.3 lw 2 dt {} lc rgb "
        "'{}' title {}",
        index, collective_point_type(s.coll), comm_sizes[s.comm_size],
        algorithm_colour(s.algorithm), gnuplot_string(title)));
    ++index;
  }
  src.data.push_back({"error_by_size.dat", std::move(data)});
  // The key grows with the series; keep the plot area at least 420 pixels high.
  src.height = std::max(520, 160 + 22 * static_cast<int>(clauses.size()));

  src.script = std::string(kCommonSettings) +
               "set title 'Prediction error by message size: E_rel = (predicted - measured) / "
               "measured'\n" +
               fmt::format("set xrange [{}:{}]\n", lo_exp - 0.5, hi_exp + 0.5) +
               size_tics("x", lo_exp, hi_exp) +
               "set format y '%+g%%'\n"
               "set xzeroaxis lt 1 lc rgb '#333333' lw 1.5\n"
               "set xlabel 'message size (bucket lower bound; Bcast: the buffer, Scatter and "
               "Alltoall: one block)'\n"
               "set ylabel 'mean E_rel'\n" +
               std::string(kKeyOutside) +
               "set offsets 0, 0, graph 0.1, graph 0.1\n" +
               corner_note(1, "above 0: model pessimistic (predicted more time)", 0.02, 0.97,
                           "left") +
               corner_note(2, "below 0: model optimistic (the call took longer)", 0.02, 0.03,
                           "left") +
               plot_line(clauses);
  return src;
}

// ---- call sites ------------------------------------------------------------------------------

PlotSource call_sites_plot(const report::Report& report, std::size_t top) {
  PlotSource src;
  src.kind = PlotKind::call_sites;
  src.width = 1000;
  if (report.call_sites.empty()) {
    src.empty_reason = "no call sites in this run's logs";
    return src;
  }
  const std::size_t n = std::min(top, report.call_sites.size());
  double max_s = 0.0;
  for (std::size_t i = 0; i < n; ++i) max_s = std::max(max_s, report.call_sites[i].time_s);
  // One unit for the whole axis (gnuplot's %c prefix would round 1.5 s to "2 s" on a linear axis).
  const auto [scale, unit] = max_s < 1e-3  ? std::pair{1e6, "µs"}
                             : max_s < 1.0 ? std::pair{1e3, "ms"}
                                           : std::pair{1.0, "s"};
  std::string data = fmt::format("# label time_{} calls coll value_label; largest first\n", unit);
  std::vector<std::string> colls;
  for (std::size_t i = 0; i < n; ++i) {
    const report::CallSiteRow& r = report.call_sites[i];
    if (std::find(colls.begin(), colls.end(), r.coll) == colls.end()) colls.push_back(r.coll);
    const std::string value = fmt::format("{}, {} call{}, {} rank{}",
                                          duration_label(r.time_s), r.calls,
                                          r.calls == 1 ? "" : "s", r.ranks,
                                          r.ranks == 1 ? "" : "s");
    data += fmt::format("{} {} {} {} {} {}\n", data_string(shorten(r.site, 60)),
                        num(r.time_s * scale), r.calls, data_string(r.coll), data_string(value),
                        rgb_int(collective_colour(r.coll)));
  }
  src.data.push_back({"call_sites.dat", std::move(data)});
  src.height = 150 + 34 * static_cast<int>(n);

  std::sort(colls.begin(), colls.end(), [](const std::string& a, const std::string& b) {
    return collective_order(a) < collective_order(b);
  });
  std::vector<std::string> clauses = {
      // Bars centred on y = n-1-row, so the busiest site is on top.
      fmt::format("'call_sites.dat' using (0.5*$2):({}-$0):(0.5*$2):(0.36):6:ytic(1) with "
                  "boxxyerror lc rgb variable notitle",
                  n - 1),
      fmt::format("'' using 2:({}-$0):5 with labels left offset char 0.6,0 textcolor rgb "
                  "'#333333' notitle",
                  n - 1)};
  for (const auto& c : colls) {
    clauses.push_back(fmt::format("keyentry with boxes fc rgb '{}' title {}",
                                  collective_colour(c), gnuplot_string(c)));
  }
  const std::string title =
      n < report.call_sites.size()
          ? fmt::format("Time per call site (the {} busiest of {}, summed over ranks)", n,
                        report.call_sites.size())
          : std::string("Time per call site (summed over ranks)");
  src.script = std::string(kCommonSettings) + fmt::format("set title {}\n", gnuplot_string(title)) +
               "set style fill solid 0.85 noborder\n" +
               fmt::format("set yrange [-0.6:{}]\n", n - 0.4) +
               // Room right of the longest bar for its value label.
               fmt::format("set xrange [0:{}]\n", num(max_s * scale * 1.5)) +
               "set ytics scale 0\nset grid xtics noytics\n" +
               fmt::format("set xlabel {}\n",
                           gnuplot_string(fmt::format("time spent at the call site, summed over ranks "
                                                 "({})", unit))) +
               // Bottom right: the bars are sorted, longest on top, so that corner is free.
               "set key bottom right Left reverse samplen 1.5 box lc rgb '#cccccc'\n" +
               plot_line(clauses);
  return src;
}

// ---- decision map ----------------------------------------------------------------------------

std::vector<DecisionMap> decision_maps(const tools::GridSpec& grid, const ModelSet& models,
                                       const Policy& policy) {
  return tools::decision_grids(kCollectives, grid, models, policy);
}

PlotSource decision_map_plot(const std::vector<DecisionMap>& maps, const std::string& model_label) {
  PlotSource src;
  src.kind = PlotKind::decision_map;
  src.width = 1000;
  if (maps.empty()) {
    src.empty_reason = "no decision map: no collective was asked for";
    return src;
  }
  constexpr int kPanelHeight = 380;
  src.height = 60 + kPanelHeight * static_cast<int>(maps.size());

  std::string data = "# one block per collective; one line per grid cell, in decision_grid order\n"
                     "# x_index y_index comm_size bytes algorithm rgb\n";
  std::string panels;
  const double panel = 1.0 / static_cast<double>(maps.size());
  const double top_space = 50.0 / src.height;  // the multiplot title
  for (std::size_t k = 0; k < maps.size(); ++k) {
    const DecisionMap& m = maps[k];
    if (k > 0) data += "\n\n";
    std::vector<std::string> present;  // algorithms on this map, registry order, native last
    for (const tools::GridCell& cell : m.cells) {
      const auto x = std::find(m.grid.bytes.begin(), m.grid.bytes.end(), cell.bytes) -
                     m.grid.bytes.begin();
      const auto y = std::find(m.grid.comm_sizes.begin(), m.grid.comm_sizes.end(),
                               cell.comm_size) - m.grid.comm_sizes.begin();
      data += fmt::format("{} {} {} {} {} {}\n", x, y, cell.comm_size, cell.bytes,
                          data_string(cell.algorithm), rgb_int(algorithm_colour(cell.algorithm)));
      if (std::find(present.begin(), present.end(), cell.algorithm) == present.end()) {
        present.push_back(cell.algorithm);
      }
    }
    std::sort(present.begin(), present.end(), [](const std::string& a, const std::string& b) {
      return std::pair{a == kNativeName, registry_index(a)} <
             std::pair{b == kNativeName, registry_index(b)};
    });
    std::vector<std::string> xtics, ytics;
    for (std::size_t i = 0; i < m.grid.bytes.size(); ++i) {
      xtics.push_back(fmt::format("{} {}", gnuplot_string(common::format_size(m.grid.bytes[i])), i));
    }
    for (std::size_t i = 0; i < m.grid.comm_sizes.size(); ++i) {
      ytics.push_back(fmt::format("'{}' {}", m.grid.comm_sizes[i], i));
    }
    std::vector<std::string> clauses = {fmt::format(
        "'decision_map.dat' index {} using 1:2:(0.5):(0.5):6 with boxxyerror fs solid 1.0 "
        "border lc rgb '#ffffff' lc rgb variable notitle",
        k)};
    for (const auto& a : present) {
      clauses.push_back(fmt::format("keyentry with boxes fs solid 1.0 fc rgb '{}' title {}",
                                    algorithm_colour(a), gnuplot_string(a)));
    }
    const std::string_view coll = collective_name(m.coll);
    const std::string mpi_name = coll == "bcast"      ? "MPI_Bcast"
                                 : coll == "scatter"  ? "MPI_Scatter"
                                                      : "MPI_Alltoall";
    // Explicit origin, size and margins (not `layout`): every panel's grid then starts and ends
    // at the same x, whatever the length of its legend.
    panels += fmt::format("set origin 0,{}\nset size 1,{}\n",
                          num((1.0 - top_space) * (1.0 - panel * static_cast<double>(k + 1))),
                          num((1.0 - top_space) * panel));
    panels += fmt::format("set title {}\n",
                          gnuplot_string(fmt::format("{}: algorithm chosen by the model", mpi_name)));
    panels += fmt::format("set xrange [-0.5:{}]\nset yrange [-0.5:{}]\n",
                          m.grid.bytes.size() - 0.5, m.grid.comm_sizes.size() - 0.5);
    panels += fmt::format("set xtics ({}) rotate by -35 left\n", fmt::join(xtics, ", "));
    panels += fmt::format("set ytics ({})\n", fmt::join(ytics, ", "));
    panels += fmt::format(
        "set xlabel {}\n",
        gnuplot_string(coll == "bcast" ? "message size (the whole buffer)"
                                  : "message size (one block, sent to each rank)"));
    panels += plot_line(clauses);
  }
  src.data.push_back({"decision_map.dat", std::move(data)});
  src.script = std::string(kCommonSettings) +
               "set grid noxtics noytics\n"
               "set tics scale 0\n"
               "set border 0\n"
               "set ylabel 'ranks in the communicator (P)'\n"
               // At a fixed place right of the grid, so the keys of all panels line up.
               "set key at graph 1.04, graph 1.0 left top Left reverse samplen 1.5 spacing 1.2\n"
               "set lmargin 12\nset rmargin 34\nset bmargin 5\n" +
               fmt::format("set multiplot title {}\n",
                           gnuplot_string(fmt::format("Decision map: {}", model_label))) +
               panels + "unset multiplot\n";
  return src;
}

namespace {

// The file every rank of the run named, when there is exactly one and it is still a readable file
// here ("<embedded default model>", "<built-in defaults>" and "none" are not files).
std::optional<std::string> run_file(const std::vector<std::string>& named) {
  if (named.size() != 1) return std::nullopt;
  const std::string& path = named.front();
  if (!tools::names_a_file(path)) return std::nullopt;
  std::error_code ec;
  return fs::is_regular_file(path, ec) ? std::optional(path) : std::nullopt;
}

}  // namespace

MapOutcome decision_map_for(const report::Report* report,
                            const std::optional<std::string>& model_path,
                            const std::optional<std::string>& config_path,
                            const tools::GridSpec& grid) {
  MapOutcome out;
  const std::optional<std::string> model =
      model_path ? model_path : report ? run_file(report->models) : std::nullopt;
  const std::optional<std::string> config =
      config_path ? config_path : report ? run_file(report->configs) : std::nullopt;
  const std::optional<tools::LoadedModels> loaded = tools::load_models(model, config, out.diagnostics);
  if (!loaded) {
    out.source.kind = PlotKind::decision_map;
    const auto error = std::find_if(out.diagnostics.begin(), out.diagnostics.end(),
                                    [](const Diagnostic& d) {
                                      return d.severity == Diagnostic::Severity::error;
                                    });
    out.source.empty_reason =
        "no decision map: " + (error != out.diagnostics.end()
                                   ? error->format()
                                   : std::string("the model or config file is unusable"));
    return out;
  }
  out.model_label = loaded->calibrated ? fmt::format("model {}", loaded->calibrated_source)
                                       : std::string("the embedded default model");
  if (config) out.model_label += fmt::format(", config {}", *config);
  out.source = decision_map_plot(decision_maps(grid, loaded->set(), loaded->config.policy),
                                 out.model_label);
  return out;
}


}  // namespace collsel::plots

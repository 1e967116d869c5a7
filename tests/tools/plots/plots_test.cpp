// The plots: what each one plots (its data files, from a hand-made Report or the decision grid),
// that gnuplot turns every kind into well-formed SVG with drawn paths and into PNG, what happens
// without gnuplot or when it fails, and `collsel plot` end to end.
#include "tools/plots/gnuplot.hpp"
#include "tools/plots/plots.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "command.hpp"
#include "plot_test_support.hpp"
#include "temp_dir.hpp"
#include "tools/decisions/model_loading.hpp"

namespace collsel::plots {
namespace {

namespace fs = std::filesystem;
using testing::data_rows;
using testing::hand_made_report;
using testing::run_collsel;

const fs::path kFixtures{COLLSEL_TOOLS_FIXTURES};

const DataFile& only_data(const PlotSource& src) {
  EXPECT_EQ(src.data.size(), 1u);
  return src.data.front();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

TEST(PlotKinds, NamesRoundTrip) {
  for (const PlotKind k : kPlotKinds) EXPECT_EQ(plot_kind_from_name(plot_kind_name(k)), k);
  EXPECT_FALSE(plot_kind_from_name("pie").has_value());
}

TEST(ScatterPlot, OneDataLinePerComparableMergedCall) {
  const report::Report r = hand_made_report();
  const PlotSource src = scatter_plot(r);
  ASSERT_TRUE(src.empty_reason.empty());
  const auto rows = data_rows(only_data(src).text);
  // 8 merged calls: the native one has no prediction and one scatter call took 0 s.
  ASSERT_EQ(rows.size(), 6u);
  std::multiset<std::tuple<std::string, double, double>> expected, got;
  for (const auto& c : r.merged) {
    if (c.predicted_s && c.actual_s > 0) expected.insert({c.algorithm, *c.predicted_s, c.actual_s});
  }
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 5u);
    got.insert({row[0], std::stod(row[1]), std::stod(row[2])});
  }
  EXPECT_EQ(got, expected);
}

TEST(ScatterPlot, OneSeriesPerAlgorithmWithTheDiagonal) {
  const PlotSource src = scatter_plot(hand_made_report());
  // bcast.binomial, bcast.chain_segmented, scatter.flat: three `index` blocks.
  EXPECT_EQ(count(src.script, "'scatter.dat' index"), 3u);
  EXPECT_NE(src.script.find("index 2 using"), std::string::npos);
  EXPECT_NE(src.script.find("title 'predicted = measured'"), std::string::npos);
  EXPECT_NE(src.script.find("set logscale xy"), std::string::npos);
  EXPECT_NE(src.script.find("scatter.flat (2 calls)"), std::string::npos);
  // Same colour everywhere: the series is drawn in the algorithm's colour.
  EXPECT_NE(src.script.find(algorithm_colour("bcast.binomial").substr(1)), std::string::npos);
}

TEST(ScatterPlot, NothingComparableSaysWhy) {
  report::Report r;
  EXPECT_NE(scatter_plot(r).empty_reason.find("trace"), std::string::npos);
  r.merged = {testing::merged("bcast", "native", 8, 2, std::nullopt, 1e-5)};
  const PlotSource src = scatter_plot(r);
  EXPECT_NE(src.empty_reason.find("prediction"), std::string::npos);
  EXPECT_TRUE(src.script.empty());
}

TEST(ErrorBySizePlot, RowsWithPredictionsInBucketOrder) {
  const PlotSource src = error_by_size_plot(hand_made_report());
  ASSERT_TRUE(src.empty_reason.empty());
  const auto rows = data_rows(only_data(src).text);
  // 5 error rows, the native one has no prediction.
  ASSERT_EQ(rows.size(), 4u);
  // Series bcast.binomial P = 2, bcast.binomial P = 4 (0-byte bucket first), scatter.flat P = 4.
  EXPECT_EQ(rows[0][0], "bcast.binomial, P = 2");
  EXPECT_EQ(rows[0][1], "16");  // log2(65536)
  EXPECT_EQ(rows[1][0], "bcast.binomial, P = 4");
  EXPECT_EQ(rows[1][1], "-1");  // the 0-byte bucket
  EXPECT_DOUBLE_EQ(std::stod(rows[1][4]), -50.0);
  EXPECT_EQ(rows[2][1], "10");
  EXPECT_EQ(rows[2][2], "1024");
  EXPECT_EQ(rows[2][3], "2047");
  EXPECT_DOUBLE_EQ(std::stod(rows[2][4]), -30.0);
  EXPECT_DOUBLE_EQ(std::stod(rows[2][5]), 30.0);
  EXPECT_EQ(rows[3][0], "scatter.flat, P = 4");
  EXPECT_EQ(count(src.script, "'error_by_size.dat' index"), 3u);
  // Sizes are labelled as sizes, and 0 B has its own tic.
  EXPECT_NE(src.script.find("'0 B' -1"), std::string::npos);
  EXPECT_NE(src.script.find("'64 KiB' 16"), std::string::npos);
}

TEST(CallSitesPlot, BusiestFirstCutToTop) {
  const report::Report r = hand_made_report();
  const auto all = data_rows(only_data(call_sites_plot(r)).text);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0][0], "main (ring.c:42)");
  // 40 ms at most: the axis is in ms.
  EXPECT_DOUBLE_EQ(std::stod(all[0][1]), 40.0);
  EXPECT_EQ(all[0][2], "80");
  EXPECT_EQ(all[0][3], "bcast");
  // A double quote cannot live inside a gnuplot string field: it became a single quote.
  EXPECT_EQ(all[1][0].find('"'), std::string::npos);
  EXPECT_EQ(data_rows(only_data(call_sites_plot(r, 2)).text).size(), 2u);
  EXPECT_FALSE(call_sites_plot(report::Report{}).empty_reason.empty());
}

struct Embedded {
  std::optional<models::ModelFile> model;
  Embedded() {
    Diagnostics d;
    model = tools::load_embedded(d);
  }
  [[nodiscard]] ModelSet set() const { return {nullptr, &*model}; }
};

TEST(DecisionMapPlot, DataIsTheDecisionGridCellForCell) {
  const Embedded e;
  ASSERT_TRUE(e.model);
  const tools::GridSpec grid = tools::default_grid();
  const Policy policy;
  const auto maps = decision_maps(grid, e.set(), policy);
  ASSERT_EQ(maps.size(), kCollectives.size());
  const PlotSource src = decision_map_plot(maps, "the embedded default model");
  const std::string& text = only_data(src).text;
  // One block per collective, separated by two blank lines (gnuplot's `index`).
  EXPECT_EQ(count(text, "\n\n\n"), kCollectives.size() - 1);
  const auto rows = data_rows(text);
  std::size_t i = 0;
  for (const Collective c : kCollectives) {
    const auto cells = tools::decision_grid(c, grid, e.set(), policy);
    ASSERT_EQ(cells.size(), grid.comm_sizes.size() * grid.bytes.size());
    for (const auto& cell : cells) {
      ASSERT_LT(i, rows.size());
      const auto& row = rows[i++];
      EXPECT_EQ(std::stoi(row[2]), cell.comm_size);
      EXPECT_EQ(std::stoull(row[3]), cell.bytes);
      EXPECT_EQ(row[4], cell.algorithm);
      EXPECT_EQ(grid.bytes[std::stoul(row[0])], cell.bytes);
      EXPECT_EQ(grid.comm_sizes[std::stoul(row[1])], cell.comm_size);
      EXPECT_EQ(std::stol(row[5]), std::stol(algorithm_colour(cell.algorithm).substr(1), nullptr, 16));
    }
  }
  EXPECT_EQ(i, rows.size());
  // Each panel's key lists the algorithms on its map.
  EXPECT_NE(src.script.find("keyentry with boxes fs solid 1.0 fc rgb"), std::string::npos);
  EXPECT_NE(src.script.find("MPI_Alltoall"), std::string::npos);
}

TEST(DecisionMapPlot, UnusableModelGivesNoMapAndSaysWhy) {
  const MapOutcome out = decision_map_for(nullptr, std::string("/nonexistent/model.toml"),
                                          std::nullopt);
  EXPECT_TRUE(has_errors(out.diagnostics));
  EXPECT_NE(out.source.empty_reason.find("/nonexistent/model.toml"), std::string::npos);
}

TEST(PlotColours, OneColourPerAlgorithmWithinACollectiveSharedByShape) {
  for (const Collective c : kCollectives) {
    std::set<std::string> colours;
    for (const auto& a : catalog(c)) colours.insert(algorithm_colour(a.name));
    colours.insert(algorithm_colour(kNativeName));
    EXPECT_EQ(colours.size(), catalog(c).size() + 1) << collective_name(c);
  }
  EXPECT_EQ(algorithm_colour("bcast.binomial"), algorithm_colour("scatter.binomial"));
}

// ---- rendering with gnuplot ------------------------------------------------------------------

std::vector<PlotSource> every_kind() {
  const report::Report r = hand_made_report();
  return {scatter_plot(r), error_by_size_plot(r), call_sites_plot(r),
          decision_map_for(nullptr, std::nullopt, std::nullopt).source};
}

TEST(PlotRender, EveryKindIsWellFormedSvgWithPaths) {
  for (const PlotSource& src : every_kind()) {
    SCOPED_TRACE(std::string(plot_kind_name(src.kind)));
    const Rendered out = render(src, ImageFormat::svg);
    ASSERT_FALSE(out.gnuplot_missing) << "gnuplot-nox is a dependency: scripts/install-deps.sh";
    ASSERT_TRUE(out.error.empty()) << out.error;
    EXPECT_GT(testing::xml_path_count(out.image), 3);
    // Every plotted series is a gnuplot_plot_N group (the HTML page's render check uses them).
    EXPECT_NE(out.image.find("gnuplot_plot_1"), std::string::npos);
  }
}

TEST(PlotRender, PngIsAPng) {
  const Rendered out = render(scatter_plot(hand_made_report()), ImageFormat::png);
  ASSERT_TRUE(out.error.empty()) << out.error;
  ASSERT_GT(out.image.size(), 1000u);
  EXPECT_EQ(out.image.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

TEST(PlotRender, MissingGnuplotIsReportedWithTheInstallHint) {
  const Rendered out = render(scatter_plot(hand_made_report()), ImageFormat::svg,
                              "/nonexistent/gnuplot");
  EXPECT_TRUE(out.gnuplot_missing);
  EXPECT_TRUE(out.image.empty());
  EXPECT_NE(out.error.find("gnuplot-nox"), std::string::npos);
}

TEST(PlotRender, GnuplotFailureNamesTheScriptLine) {
  PlotSource src;
  src.script = "plot no_such_function(x)\n";
  const Rendered out = render(src, ImageFormat::svg);
  EXPECT_FALSE(out.gnuplot_missing);
  EXPECT_TRUE(out.image.empty());
  EXPECT_NE(out.error.find("gnuplot failed"), std::string::npos) << out.error;
  EXPECT_NE(out.error.find("line"), std::string::npos) << out.error;
}

TEST(PlotRender, EmptySourceIsNotRun) {
  PlotSource src;
  src.empty_reason = "nothing to plot";
  const Rendered out = render(src, ImageFormat::svg, "/nonexistent/gnuplot");
  EXPECT_FALSE(out.gnuplot_missing);
  EXPECT_EQ(out.error, "nothing to plot");
}

// ---- collsel plot ----------------------------------------------------------------------------

TEST(PlotCommand, WritesEveryKindFromALog) {
  const testing::TempDir out("plot");
  const auto r = run_collsel({"plot", (kFixtures / "html_run").string(), "--out",
                              out.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const PlotKind k : kPlotKinds) {
    const fs::path file = out.path() / (std::string(plot_kind_name(k)) + ".svg");
    EXPECT_TRUE(fs::exists(file)) << file;
    EXPECT_NE(r.out.find(file.string()), std::string::npos) << r.out;
  }
}

TEST(PlotCommand, PngAndChosenKinds) {
  const testing::TempDir out("plot");
  const auto r = run_collsel({"plot", (kFixtures / "html_run").string(), "--out",
                              out.path().string(), "--format", "png", "--kind",
                              "scatter,error_by_size"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out.path() / "scatter.png"));
  EXPECT_TRUE(fs::exists(out.path() / "error_by_size.png"));
  EXPECT_FALSE(fs::exists(out.path() / "call_sites.png"));
}

TEST(PlotCommand, DecisionMapNeedsNoLogs) {
  const testing::TempDir out("plot");
  const auto r = run_collsel({"plot", "--decision-map", "--out", out.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out.path() / "decision_map.svg"));
  EXPECT_EQ(std::distance(fs::directory_iterator(out.path()), fs::directory_iterator{}), 1);
}

TEST(PlotCommand, ExitCodes) {
  const testing::TempDir out("plot");
  EXPECT_EQ(run_collsel({"plot", "--decision-map", "--kind", "scatter", "--out",
                         out.path().string()}).exit_code, 2);
  EXPECT_EQ(run_collsel({"plot", "--kind", "pie", "--out", out.path().string()}).exit_code, 2);
  EXPECT_EQ(run_collsel({"plot", (kFixtures / "html_run").string()}).exit_code, 2);  // no --out
  const auto none = run_collsel({"plot", (out.path() / "no-logs").string(), "--out",
                                 out.path().string()});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("no logs"), std::string::npos);
  const auto bad_model = run_collsel({"plot", "--decision-map", "--model",
                                      "/nonexistent/model.toml", "--out", out.path().string()});
  EXPECT_EQ(bad_model.exit_code, 1);
  EXPECT_NE(bad_model.err.find("/nonexistent/model.toml"), std::string::npos);
}

}  // namespace
}  // namespace collsel::plots

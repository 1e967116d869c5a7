// The HTML report: self-contained (no URL at all, inline SVG with unique ids), every figure and
// table present, text escaped, and a page without plots (gnuplot missing, an unusable model) that
// still holds every table and says why. The rendering in a browser is html_chromium_test.py.
#include "tools/plots/html_report.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "command.hpp"
#include "plot_test_support.hpp"
#include "temp_dir.hpp"
#include "tools/plots/plots.hpp"

namespace collsel::html {
namespace {

namespace fs = std::filesystem;
using testing::hand_made_report;

const fs::path kFixtures{COLLSEL_TOOLS_FIXTURES};
const std::vector<std::string> kFigureIds = {"plot-scatter", "plot-error_by_size",
                                             "plot-call_sites", "plot-decision_map"};

std::string read(const fs::path& path) {
  std::ostringstream text;
  text << std::ifstream(path, std::ios::binary).rdbuf();
  return text.str();
}

bool has_url(const std::string& page) {
  return page.find("http://") != std::string::npos || page.find("https://") != std::string::npos ||
         page.find("//cdn") != std::string::npos;
}

// Every id="..." or id='...' of the page.
std::vector<std::string> ids(const std::string& page) {
  static const std::regex id(R"re(\sid=["']([^"']+)["'])re");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), id); it != std::sregex_iterator();
       ++it) {
    out.push_back((*it)[1]);
  }
  return out;
}

TEST(HtmlReport, SelfContainedWithEveryFigureAndUniqueIds) {
  const testing::TempDir out("html");
  const HtmlResult result = write_html_report(hand_made_report(), {out.path(), {}, {}});
  ASSERT_TRUE(result.written);
  EXPECT_EQ(result.plots, 4) << (result.notes.empty() ? "" : result.notes.front());
  EXPECT_TRUE(result.notes.empty());
  const std::string page = read(out.path() / "index.html");
  EXPECT_FALSE(has_url(page));
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find(" src="), std::string::npos);  // no external script or image
  EXPECT_FALSE(fs::exists(out.path() / "index.html.tmp"));
  for (const auto& id : kFigureIds) {
    const std::size_t at = page.find("<figure class=\"plot\" id=\"" + id + "\">");
    ASSERT_NE(at, std::string::npos) << id;
    // The plot itself, inline, before the figure ends.
    EXPECT_LT(page.find("<svg", at), page.find("</figure>", at)) << id;
  }
  // Four gnuplot SVGs define the same ids; prefixed, each is unique on the page.
  const std::vector<std::string> all = ids(page);
  const std::set<std::string> distinct(all.begin(), all.end());
  EXPECT_EQ(distinct.size(), all.size());
  EXPECT_TRUE(distinct.contains("scatter-gnuplot_plot_1"));
}

TEST(HtmlReport, TablesOfEverySection) {
  const std::string page = render_html(hand_made_report(), {});
  for (const char* section : {"id=\"totals\"", "id=\"call-sites\"", "id=\"errors\"",
                              "id=\"savings\"", "id=\"rows\""}) {
    EXPECT_NE(page.find(section), std::string::npos) << section;
  }
  EXPECT_NE(page.find("main (ring.c:42)"), std::string::npos);
  EXPECT_NE(page.find("[1 KiB, 2 KiB)"), std::string::npos);  // an error bucket
  EXPECT_NE(page.find("-30.0%"), std::string::npos);          // its E_rel
  EXPECT_NE(page.find("20261124-100000-p42"), std::string::npos);
  EXPECT_NE(page.find("15.0 µs"), std::string::npos);  // saved, in the header card
}

// Issue 17: without a measured native time the header card shows no saving, says so, and how to
// measure one; the model's estimates have their own section, named as estimates.
TEST(HtmlReport, NoBaselineNoSavingCard) {
  report::Report r = hand_made_report();
  r.savings.front().native_s = r.savings.front().saved_s = NAN;
  r.savings.front().native_basis.clear();
  r.measured_saving_rows = 0;
  r.saved_measured_s = NAN;
  r.saving_basis = "no native baseline measured: run the program once more with COLLSEL_DISABLE=all";
  report::EstimateRow e;
  e.coll = "bcast";
  e.algorithm = "bcast.binomial";
  e.native_algorithm = "bcast.chain";
  e.actual_s = 5.5e-5;
  e.ratio = 2.0;
  e.native_s = 1.1e-4;
  e.saved_s = 5.5e-5;
  e.how = "55.0 us measured x (2 / 1)";
  r.estimates = {e};
  r.saved_estimated_s = e.saved_s;
  const std::string page = render_html(r, {});
  const std::size_t card = page.find("id=\"saved-card\"");
  ASSERT_NE(card, std::string::npos);
  const std::string card_html = page.substr(card, page.find("</div>\n</div>", card) - card);
  EXPECT_NE(card_html.find("not measured"), std::string::npos) << card_html;
  EXPECT_NE(card_html.find("COLLSEL_DISABLE=all"), std::string::npos) << card_html;
  EXPECT_EQ(card_html.find("µs"), std::string::npos) << card_html;  // no figure at all
  EXPECT_NE(page.find("id=\"estimates\""), std::string::npos);
  EXPECT_NE(page.find("Model estimates (not measurements)"), std::string::npos);
  EXPECT_NE(page.find("Estimated total (model, not measured)"), std::string::npos);
}

TEST(HtmlReport, TextIsEscaped) {
  report::Report r = hand_made_report();
  r.call_sites.front().site = "<script>alert(1)</script>";
  r.warnings = {"a & b <c>"};
  const std::string page = render_html(r, {});
  EXPECT_EQ(page.find("<script>alert"), std::string::npos);
  EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("a &amp; b &lt;c&gt;"), std::string::npos);
  // The long template call site with both quotes made it through escaped.
  EXPECT_NE(page.find("solver_step&lt;std::vector&lt;int&gt;&gt; &quot;x&quot; &amp; &#39;y&#39;"),
            std::string::npos);
}

TEST(HtmlReport, DisagreementsAreShownFirst) {
  report::Report r = hand_made_report();
  r.disagreeing_calls = 1;
  r.disagreements = {{"0.0", 7, {"bcast.binomial", "bcast.chain"}}};
  const std::string page = render_html(r, {});
  const std::size_t warning = page.find("RANKS DISAGREED");
  ASSERT_NE(warning, std::string::npos);
  EXPECT_LT(warning, page.find("id=\"plots\""));
}

TEST(HtmlReport, WithoutGnuplotTheTablesStayAndEachPlotSaysWhy) {
  const testing::TempDir out("html");
  HtmlOptions options{out.path(), {}, {}};
  options.gnuplot = "/nonexistent/gnuplot";
  const HtmlResult result = write_html_report(hand_made_report(), options);
  ASSERT_TRUE(result.written);
  EXPECT_EQ(result.plots, 0);
  EXPECT_TRUE(result.gnuplot_missing);
  ASSERT_EQ(result.notes.size(), 1u);  // one hint, not one per plot
  EXPECT_NE(result.notes.front().find("apt-get install gnuplot-nox"), std::string::npos);
  const std::string page = read(result.index);
  EXPECT_EQ(page.find("<svg"), std::string::npos);
  for (const auto& id : kFigureIds) {
    const std::size_t at = page.find("id=\"" + id + "\"");
    ASSERT_NE(at, std::string::npos);
    EXPECT_LT(page.find("gnuplot-nox", at), page.find("</figure>", at)) << id;
  }
  EXPECT_NE(page.find("main (ring.c:42)"), std::string::npos);
  EXPECT_FALSE(has_url(page));
}

TEST(HtmlReport, UnusableModelLosesOnlyTheDecisionMap) {
  const testing::TempDir out("html");
  HtmlOptions options{out.path(), std::string("/nonexistent/model.toml"), {}};
  const HtmlResult result = write_html_report(hand_made_report(), options);
  ASSERT_TRUE(result.written);
  EXPECT_EQ(result.plots, 3);
  EXPECT_TRUE(has_errors(result.diagnostics));
  const std::string page = read(result.index);
  const std::size_t map = page.find("id=\"plot-decision_map\"");
  ASSERT_NE(map, std::string::npos);
  EXPECT_LT(page.find("/nonexistent/model.toml", map), page.find("</figure>", map));
}

TEST(HtmlReport, UnwritableDirectoryIsADiagnostic) {
  const testing::TempDir out("html");
  std::ofstream(out.path() / "file") << "x";
  const HtmlResult result = write_html_report(hand_made_report(), {out.path() / "file" / "sub",
                                                                   {}, {}});
  EXPECT_FALSE(result.written);
  EXPECT_TRUE(has_errors(result.diagnostics));
}

TEST(HtmlInlineSvg, NoPrologueNoNamespacesPrefixedIds) {
  const std::string svg =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
      "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
      "<svg width=\"10\" height=\"10\"\n xmlns=\"http://www.w3.org/2000/svg\"\n "
      "xmlns:xlink=\"http://www.w3.org/1999/xlink\"\n>\n<title>Gnuplot</title>"
      "<desc>Produced by GNUPLOT</desc>\n<defs><path id='gpPt0' d='M0,0'/></defs>"
      "<clipPath id=\"gpclip1\"><rect/></clipPath>"
      "<g id=\"gnuplot_plot_1\" clip-path=\"url(#gpclip1)\"><use xlink:href='#gpPt0'/></g></svg>";
  const std::string out = inline_svg(svg, "scatter-");
  EXPECT_EQ(out.rfind("<svg", 0), 0u);
  EXPECT_EQ(out.find("http"), std::string::npos);
  EXPECT_EQ(out.find("<title>"), std::string::npos);
  EXPECT_EQ(out.find("<desc>"), std::string::npos);
  EXPECT_NE(out.find("id='scatter-gpPt0'"), std::string::npos);
  EXPECT_NE(out.find(" href='#scatter-gpPt0'"), std::string::npos);
  EXPECT_EQ(out.find("xlink:"), std::string::npos);
  EXPECT_NE(out.find("id=\"scatter-gnuplot_plot_1\""), std::string::npos);
  EXPECT_NE(out.find("url(#scatter-gpclip1)"), std::string::npos);
  // Still XML (without namespaces, Python's parser sees plain <path> elements).
  EXPECT_EQ(testing::xml_path_count(out, false), 1);
}

TEST(HtmlReport, ReportCommandWritesThePage) {
  const testing::TempDir out("html");
  const auto r = testing::run_collsel({"report", (kFixtures / "html_run").string(), "--html",
                                       out.path().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = read(out.path() / "index.html");
  for (const auto& id : kFigureIds) EXPECT_NE(page.find(id), std::string::npos) << id;
  EXPECT_EQ(page.find("Plot not drawn"), std::string::npos);
  EXPECT_FALSE(has_url(page));
}

}  // namespace
}  // namespace collsel::html

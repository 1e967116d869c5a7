// `collsel list`, `collsel report` and the top-level options, run as users run them.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "selector/catalog.hpp"

namespace collsel::testing {
namespace {

using nlohmann::json;

const std::filesystem::path kFixtures{COLLSEL_TOOLS_FIXTURES};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::vector<std::string> registry_names(Collective c) {
  std::vector<std::string> names;
  for (const auto& a : catalog(c)) names.emplace_back(a.name);
  return names;
}

// `list --names` feeds scripts and the build: exactly the registry's names, one per line.
TEST(List, NamesAreExactlyTheRegistryInOrder) {
  std::vector<std::string> all;
  for (Collective c : kCollectives) {
    const CommandResult r = run_collsel({"list", "--coll", std::string(collective_name(c)),
                                         "--names"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(lines_of(r.out), registry_names(c));
    const auto names = registry_names(c);
    all.insert(all.end(), names.begin(), names.end());
  }
  const CommandResult r = run_collsel({"list", "--names"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(lines_of(r.out), all);
}

TEST(List, ShowsEveryNameWithItsSummary) {
  const CommandResult r = run_collsel({"list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (Collective c : kCollectives) {
    for (const auto& a : catalog(c)) {
      EXPECT_NE(r.out.find(std::string(a.name)), std::string::npos) << a.name;
      EXPECT_NE(r.out.find(std::string(a.summary)), std::string::npos) << a.summary;
    }
  }
}

TEST(Report, JsonOfAKnownRun) {
  const CommandResult r =
      run_collsel({"report", (kFixtures / "report_known").string(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc.at("run"), "20261123-080000-p1");
  EXPECT_EQ(doc.at("calls"), 5);
  bool found = false;
  for (const json& row : doc.at("rows")) {
    if (row.at("algorithm") != "bcast.binomial" || row.at("comm_size") != 3) continue;
    found = true;
    // Calls of 4 ms and 2 ms (slowest ranks), both predicted 2 ms: E_rel -0.5 and 0.
    EXPECT_DOUBLE_EQ(row.at("mean_actual_s").get<double>(), 0.003);
    EXPECT_DOUBLE_EQ(row.at("mean_rel_error").get<double>(), -0.25);
    EXPECT_DOUBLE_EQ(row.at("mean_abs_rel_error").get<double>(), 0.25);
  }
  EXPECT_TRUE(found) << r.out;
}

// Issue 17: a saving is a headline only when native calls were measured. Without any (this run
// served every call and no --baseline), the report says so and how to measure them.
TEST(Report, WithoutABaselineNoSavingIsShown) {
  const CommandResult r = run_collsel({"report", (kFixtures / "summary_level").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("time saved against the native collective: not measured"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("COLLSEL_DISABLE=all"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("saved (measured)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("MODEL ESTIMATES, not measurements"), std::string::npos) << r.out;
}

TEST(Report, WithABaselineTheMeasuredSavingIsShown) {
  const CommandResult r = run_collsel({"report", (kFixtures / "capped").string(), "--baseline",
                                       (kFixtures / "baseline").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Bcast: 5 calls, 17 ms against 5 x 6.5 ms native; Scatter: 300 us against 2 x 200 us.
  EXPECT_NE(r.out.find("saved (measured): +15.6 ms over 2 of 2 call shape(s)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("baseline run 20261124-090000-p3"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("MODEL ESTIMATES"), std::string::npos) << r.out;  // all measured
}

TEST(Report, RunOptionSelectsAnOlderRun) {
  const CommandResult r = run_collsel({"report", (kFixtures / "logdir").string(), "--run",
                                       "20261123-070000-p100", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out).at("run"), "20261123-070000-p100");
}

TEST(Report, ProblemsAndWarningsGoToStderrForMachineFormats) {
  const CommandResult r =
      run_collsel({"report", (kFixtures / "disagree").string(), "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("RANKS DISAGREED"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("WARNING"), std::string::npos) << r.out;
}

TEST(Report, TextEndsWithTheWarnings) {
  const CommandResult r = run_collsel({"report", (kFixtures / "disagree").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("RANKS DISAGREED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("20261123-090000-p7"), std::string::npos) << r.out;
}

TEST(Report, NoLogsExitsOneSayingWhereItLookedAndWhatWritesLogs) {
  const TempDir empty("report-empty");
  const CommandResult r = run_collsel({"report", empty.path().string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(empty.path().string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("LD_PRELOAD"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(Report, BadFormatIsAUsageError) {
  const CommandResult r =
      run_collsel({"report", (kFixtures / "report_known").string(), "--format", "yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("yaml"), std::string::npos) << r.err;
}

// A learned table of one Bcast shape (P = 16, 64 KiB) in format `version`, whose measurements
// chose `chosen` (0.001 s a call) over the model's bcast.chain_segmented (0.004 s).
std::string learned_table(int version, const std::string& chosen) {
  return fmt::format(R"(format_version = {}
model = "collsel default"
[[shape]]
coll = "bcast"
comm_size = 16
bytes = 65536
root = 0
model_choice = "bcast.chain_segmented"
chosen = "{}"
calls = 200
explore_calls = 8
measured_s = {{ "bcast.chain_segmented" = 0.004, "{}" = 0.001 }}
)",
                     version, chosen, chosen);
}

TEST(Explain, ALearnedTableSaysWhatARunStartedFromItRuns) {
  const TempDir dir("explain-learned");
  const auto table = dir.path() / "learned.toml";
  std::ofstream(table) << learned_table(1, "bcast.binomial_segmented");
  CommandResult r = run_collsel({"explain", "--coll", "bcast", "-P", "16", "-m", "64k",
                                 "--learned", table.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("a run started from it runs bcast.binomial_segmented (rung measured)"),
            std::string::npos) << r.out;
  r = run_collsel({"explain", "--coll", "bcast", "-P", "8", "-m", "64k", "--learned",
                   table.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("no entry for this call shape"), std::string::npos) << r.out;
  // Format 2: a trial's segment in the name, and what it means.
  std::ofstream(table) << learned_table(2, "bcast.chain_segmented@6144");
  r = run_collsel({"explain", "--coll", "bcast", "-P", "16", "-m", "64k", "--learned",
                   table.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("a run started from it runs bcast.chain_segmented@6144 (rung measured)"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bcast.chain_segmented cut into 6144-byte segments, a trial's"),
            std::string::npos) << r.out;
  std::ofstream(table) << "format_version = 3\n";
  r = run_collsel({"explain", "--coll", "bcast", "-P", "8", "-m", "64k", "--learned",
                   table.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("format_version must be 1 to 2"), std::string::npos) << r.err;
}

TEST(Cli, VersionPrintsTheProjectVersion) {
  const CommandResult r = run_collsel({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find(COLLSEL_VERSION), std::string::npos) << r.out;
}

TEST(Cli, ACommandIsRequired) {
  EXPECT_EQ(run_collsel({}).exit_code, 2);
  EXPECT_EQ(run_collsel({"frobnicate"}).exit_code, 2);
}

}  // namespace
}  // namespace collsel::testing

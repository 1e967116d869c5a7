// Report aggregation on runs whose answers are worked out by hand (fixtures/README.md).
// Assertions are on the structs and on parsed JSON/CSV, never on the text layout (STYLE 8.9 #34).
#include "tools/report.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace collsel::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kFixtures{COLLSEL_TOOLS_FIXTURES};

const Row* find_row(const std::vector<Row>& rows, std::string_view algorithm, int comm_size) {
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) {
    return r.algorithm == algorithm && r.comm_size == comm_size;
  });
  return it == rows.end() ? nullptr : &*it;
}

Report known_report() { return build_report(logs::read_run(kFixtures / "report_known")); }

TEST(Report, CallTimeIsTheSlowestRankAndErrorsFollowTheDefinition) {
  const Report r = known_report();
  EXPECT_TRUE(r.problems.empty());
  const Row* row = find_row(r.rows, "bcast.binomial", 3);
  ASSERT_NE(row, nullptr);
  // seq 0: ranks took 1, 2, 4 ms -> 4 ms; predicted 2 ms -> E_rel = (2 - 4) / 4 = -0.5.
  // seq 1: ranks took 2, 1, 1 ms -> 2 ms; predicted 2 ms -> E_rel = 0.
  EXPECT_EQ(row->calls, 2);
  EXPECT_EQ(row->predicted_calls, 2);
  EXPECT_DOUBLE_EQ(row->mean_actual_s, 0.003);
  EXPECT_DOUBLE_EQ(row->min_actual_s, 0.002);
  EXPECT_DOUBLE_EQ(row->max_actual_s, 0.004);
  EXPECT_DOUBLE_EQ(row->mean_predicted_s, 0.002);
  EXPECT_DOUBLE_EQ(row->mean_rel_error, -0.25);
  EXPECT_DOUBLE_EQ(row->mean_abs_rel_error, 0.25);
  EXPECT_EQ(row->incomplete_calls, 0);
}

TEST(Report, CommunicatorSizeSeparatesRows) {
  const Report r = known_report();
  const Row* sub = find_row(r.rows, "bcast.binomial", 2);
  ASSERT_NE(sub, nullptr);
  EXPECT_EQ(sub->calls, 1);
  EXPECT_DOUBLE_EQ(sub->mean_actual_s, 0.0015);
  EXPECT_NEAR(sub->mean_rel_error, -1.0 / 3.0, 1e-12);
}

TEST(Report, CallsWithoutPredictionHaveNoError) {
  const Report r = known_report();
  const Row* native = find_row(r.rows, "native", 3);
  ASSERT_NE(native, nullptr);
  EXPECT_EQ(native->calls, 1);
  EXPECT_EQ(native->predicted_calls, 0);
  EXPECT_DOUBLE_EQ(native->mean_actual_s, 0.005);
  EXPECT_TRUE(std::isnan(native->mean_predicted_s));
  EXPECT_TRUE(std::isnan(native->mean_rel_error));
  EXPECT_EQ(native->rungs, std::vector<std::string>{"native"});
}

TEST(Report, HeaderFactsAndOrder) {
  const Report r = known_report();
  EXPECT_EQ(r.run_id, "20261123-080000-p1");
  EXPECT_EQ(r.world_size, 3);
  EXPECT_EQ(r.rank_files, 3);
  EXPECT_EQ(r.hosts, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(r.records, 14U);
  EXPECT_EQ(r.calls, 5U);
  ASSERT_EQ(r.rows.size(), 4U);
  // Sorted by coll, algorithm, bytes, P.
  EXPECT_EQ(r.rows[0].algorithm, "bcast.binomial");
  EXPECT_EQ(r.rows[0].comm_size, 2);
  EXPECT_EQ(r.rows[1].algorithm, "bcast.binomial");
  EXPECT_EQ(r.rows[1].comm_size, 3);
  EXPECT_EQ(r.rows[2].algorithm, "native");
  EXPECT_EQ(r.rows[3].coll, "scatter");
  EXPECT_EQ(r.disagreeing_calls, 0);
  EXPECT_EQ(r.incomplete_calls, 0);
  EXPECT_TRUE(r.warnings.empty());
}

TEST(Report, JsonCarriesTheSameNumbers) {
  const json doc = json::parse(format_json(known_report()));
  EXPECT_EQ(doc.at("run"), "20261123-080000-p1");
  EXPECT_EQ(doc.at("calls"), 5);
  const json& rows = doc.at("rows");
  const auto row = std::find_if(rows.begin(), rows.end(), [](const json& j) {
    return j.at("algorithm") == "bcast.binomial" && j.at("comm_size") == 3;
  });
  ASSERT_NE(row, rows.end());
  EXPECT_DOUBLE_EQ(row->at("mean_actual_s").get<double>(), 0.003);
  EXPECT_DOUBLE_EQ(row->at("mean_rel_error").get<double>(), -0.25);
  const auto scatter = std::find_if(rows.begin(), rows.end(),
                                    [](const json& j) { return j.at("coll") == "scatter"; });
  ASSERT_NE(scatter, rows.end());
  // Actual 5e-5 (slowest of 2e-5, 3e-5, 5e-5), predicted 1e-4: the model is pessimistic, +100 %.
  EXPECT_DOUBLE_EQ(scatter->at("mean_rel_error").get<double>(), 1.0);
  const auto native = std::find_if(rows.begin(), rows.end(),
                                   [](const json& j) { return j.at("algorithm") == "native"; });
  ASSERT_NE(native, rows.end());
  EXPECT_TRUE(native->at("mean_predicted_s").is_null());
  EXPECT_TRUE(native->at("mean_rel_error").is_null());
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream cells_in(line);
    std::string cell;
    while (std::getline(cells_in, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    lines.push_back(cells);
  }
  return lines;
}

TEST(Report, CsvHasOneLinePerRowAndEmptyCellsForMissingPredictions) {
  const Report r = known_report();
  const auto lines = parse_csv(format_csv(r));
  ASSERT_EQ(lines.size(), r.rows.size() + 1);
  const auto& header = lines.front();
  const auto column = [&](std::string_view name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) -
                                    header.begin());
  };
  for (const auto& line : lines) ASSERT_EQ(line.size(), header.size());
  const std::size_t algorithm = column("algorithm");
  const std::size_t rel = column("mean_rel_error");
  ASSERT_LT(rel, header.size());
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i][algorithm] == "native") {
      EXPECT_EQ(lines[i][rel], "");
    }
    if (lines[i][algorithm] == "bcast.binomial" && lines[i][column("comm_size")] == "3") {
      EXPECT_DOUBLE_EQ(std::stod(lines[i][rel]), -0.25);
    }
  }
}

TEST(Report, TextNamesTheRunAndEveryRow) {
  const Report r = known_report();
  const std::string text = format_text(r);
  EXPECT_NE(text.find(r.run_id), std::string::npos);
  for (const Row& row : r.rows) EXPECT_NE(text.find(row.algorithm), std::string::npos);
}

TEST(Report, FlagsRanksThatDisagreeAndCallsMissingRanks) {
  const Report r = build_report(logs::read_run(kFixtures / "disagree"));
  // seq 0: binomial vs flat; seq 1: same algorithm, different segment sizes.
  EXPECT_EQ(r.disagreeing_calls, 2);
  ASSERT_EQ(r.disagreements.size(), 2U);
  EXPECT_EQ(r.disagreements[0].seq, 0);
  EXPECT_EQ(r.disagreements[0].algorithms,
            (std::vector<std::string>{"bcast.binomial", "bcast.flat"}));
  // seq 2 was logged by rank 0 only.
  EXPECT_EQ(r.incomplete_calls, 1);
  ASSERT_FALSE(r.warnings.empty());
  EXPECT_NE(r.warnings.front().find("DISAGREE"), std::string::npos);
  EXPECT_NE(r.warnings.front().find("2 call(s)"), std::string::npos);

  const json doc = json::parse(format_json(r));
  EXPECT_EQ(doc.at("disagreeing_calls"), 2);
  EXPECT_EQ(doc.at("incomplete_calls"), 1);
  EXPECT_NE(format_text(r).find("WARNING: RANKS DISAGREED"), std::string::npos);
}

TEST(Report, MergeUsesLowestCommRankForTheDecision) {
  logs::CallRecord a;
  a.run = "r";
  a.comm = "0.0";
  a.comm_size = 2;
  a.coll = "bcast";
  a.algorithm = "bcast.flat";
  a.predicted_s = 1.0;
  a.actual_s = 0.5;
  logs::CallRecord b = a;
  a.comm_rank = 1;
  b.comm_rank = 0;
  b.predicted_s = 2.0;  // differs only to see which rank's value is taken
  b.actual_s = 0.25;
  const auto merged = merge_calls({a, b});
  ASSERT_EQ(merged.size(), 1U);
  EXPECT_EQ(merged[0].ranks_present, 2);
  EXPECT_DOUBLE_EQ(*merged[0].predicted_s, 2.0);
  EXPECT_DOUBLE_EQ(merged[0].actual_s, 0.5);
  EXPECT_FALSE(merged[0].ranks_disagree);
}

TEST(Report, DuplicateRecordsAreWarnedAbout) {
  logs::CallRecord a;
  a.run = "r";
  a.comm = "0.0";
  a.comm_size = 1;
  a.coll = "bcast";
  a.algorithm = "bcast.flat";
  logs::RunLog log;
  log.calls = {a, a};
  const Report r = build_report(log);
  EXPECT_EQ(r.calls, 1U);
  ASSERT_EQ(r.warnings.size(), 1U);
  EXPECT_NE(r.warnings[0].find("duplicate"), std::string::npos);
}

}  // namespace
}  // namespace collsel::report

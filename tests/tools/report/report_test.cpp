// Report aggregation on runs whose answers are worked out by hand (fixtures/README.md).
// Assertions are on the structs and on parsed JSON/CSV, never on the text layout (STYLE 8.9 #34).
#include "tools/report/report.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "selector/decide.hpp"
#include "tools/decisions/native_choice.hpp"
#include "tools/logs/symbolize.hpp"

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
  logs::LoggedCall a;
  a.run = "r";
  a.comm = "0.0";
  a.comm_size = 2;
  a.coll = "bcast";
  a.algorithm = "bcast.flat";
  a.predicted_s = 1.0;
  a.actual_s = 0.5;
  logs::LoggedCall b = a;
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
  logs::LoggedCall a;
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

// ---- the run-level sections (fixtures/README.md: capped/, baseline/, split_cap/, summary_level/)

constexpr double kTol = 1e-12;

const Total* find_total(const Report& r, std::string_view coll, std::string_view algorithm) {
  const auto it = std::find_if(r.totals.begin(), r.totals.end(), [&](const Total& t) {
    return t.coll == coll && t.algorithm == algorithm;
  });
  return it == r.totals.end() ? nullptr : &*it;
}

const ErrorRow* find_error(const Report& r, std::string_view algorithm, std::string_view source) {
  const auto it = std::find_if(r.errors.begin(), r.errors.end(), [&](const ErrorRow& e) {
    return e.algorithm == algorithm && e.source == source;
  });
  return it == r.errors.end() ? nullptr : &*it;
}

const SavingRow* find_saving(const Report& r, std::string_view coll) {
  const auto it = std::find_if(r.savings.begin(), r.savings.end(),
                               [&](const SavingRow& s) { return s.coll == coll; });
  return it == r.savings.end() ? nullptr : &*it;
}

const EstimateRow* find_estimate(const Report& r, std::string_view coll) {
  const auto it = std::find_if(r.estimates.begin(), r.estimates.end(),
                               [&](const EstimateRow& e) { return e.coll == coll; });
  return it == r.estimates.end() ? nullptr : &*it;
}

bool has_warning(const Report& r, std::string_view a, std::string_view b = "") {
  return std::any_of(r.warnings.begin(), r.warnings.end(), [&](const std::string& w) {
    return w.find(a) != std::string::npos && w.find(b) != std::string::npos;
  });
}

// What the report prices the native collective with when nothing measured it and no model file
// is around: the embedded default model.
const native::NativeEstimator& embedded_estimator() {
  static const native::NativeEstimator estimator = [] {
    Diagnostics diagnostics;
    std::vector<std::string> notes;
    auto e = native::load_estimator(std::nullopt, {"<embedded default model>"},
                                    native::NativeRules{}, diagnostics, notes);
    EXPECT_TRUE(notes.empty());
    return std::move(*e);
  }();
  return estimator;
}

Report capped_report(const logs::RunLog* baseline = nullptr) {
  static const logs::RunLog log = logs::read_run(kFixtures / "capped");
  Options options;
  options.estimator = &embedded_estimator();
  options.baseline = baseline;
  return build_report(log, options);
}

// The report with its call sites resolved from the log's module records, as `collsel report` does,
// the first `top` kept.
Report report_with_call_sites(const logs::RunLog& log, std::size_t top = Options{}.top_call_sites) {
  tools::Symbolizer symbolizer = tools::symbolizer_for(log);
  Options options;
  options.symbolizer = &symbolizer;
  options.top_call_sites = top;
  return build_report(log, options);
}

TEST(Report, BucketsArePowersOfTwoWithZeroAlone) {
  EXPECT_EQ(bucket_of(0), (Bucket{0, 0}));
  EXPECT_EQ(bucket_of(1), (Bucket{1, 1}));
  EXPECT_EQ(bucket_of(3), (Bucket{2, 3}));
  EXPECT_EQ(bucket_of(1024), (Bucket{1024, 2047}));
  EXPECT_EQ(bucket_of(2047), (Bucket{1024, 2047}));
  const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
  EXPECT_EQ(bucket_of(top), (Bucket{std::uint64_t{1} << 63, top}));
}

TEST(Report, TotalsAddTraceAndSummaryCallsOfACappedRun) {
  const Report r = capped_report();
  // Traced: 2 Bcasts, slowest ranks 3 ms and 2 ms. Summarised: 3 per rank on 2 ranks = 3 calls at
  // the slowest rank's mean, max(6 ms / 3, 12 ms / 3) = 4 ms.
  const Total* bcast = find_total(r, "bcast", "bcast.binomial");
  ASSERT_NE(bcast, nullptr);
  EXPECT_EQ(bcast->calls, 5);
  EXPECT_NEAR(bcast->time_s, 0.005 + 3 * 0.004, kTol);
  EXPECT_EQ(bcast->bytes, 5U * 1024U);
  // Overflow: the busiest rank's count and time.
  const Total* overflow = find_total(r, "bcast", "*");
  ASSERT_NE(overflow, nullptr);
  EXPECT_EQ(overflow->calls, 5);
  EXPECT_NEAR(overflow->time_s, 0.005, kTol);
  const Total* native = find_total(r, "scatter", "native");
  ASSERT_NE(native, nullptr);
  EXPECT_EQ(native->calls, 4);
  EXPECT_NEAR(native->time_s, 4 * 0.0002, kTol);
  const Total* served = find_total(r, "scatter", "scatter.binomial");
  ASSERT_NE(served, nullptr);
  EXPECT_EQ(served->calls, 2);
  EXPECT_NEAR(served->time_s, 2 * 0.00015, kTol);

  ASSERT_EQ(r.totals.size(), 4U);
  EXPECT_NEAR(r.total_time_s, 0.017 + 0.005 + 0.0008 + 0.0003, kTol);
  double shares = 0.0;
  for (std::size_t i = 0; i < r.totals.size(); ++i) {
    shares += r.totals[i].share;
    if (i > 0) {
      EXPECT_GE(r.totals[i - 1].time_s, r.totals[i].time_s);
    }
  }
  EXPECT_NEAR(shares, 1.0, kTol);
  EXPECT_NEAR(bcast->share, 0.017 / r.total_time_s, kTol);
  EXPECT_EQ(r.totals.front().algorithm, "bcast.binomial");
}

TEST(Report, TraceCapAndOverflowAreWarnedAbout) {
  const Report r = capped_report();
  EXPECT_EQ(r.levels, std::vector<std::string>{"trace"});
  EXPECT_EQ(r.summarised_calls, 9 + 14);
  EXPECT_EQ(r.overflow_calls, 5);
  EXPECT_TRUE(has_warning(r, "rank 0 logged 2 calls then summarised 9 more", "max_records"));
  EXPECT_TRUE(has_warning(r, "rank 1 logged 2 calls then summarised 14 more"));
  EXPECT_TRUE(has_warning(r, "rank 1 counted 5 calls in overflow entries", "summary_entries"));
}

TEST(Report, ErrorsOfTracedAndSummarisedCallsAreSeparateRows) {
  const Report r = capped_report();
  const ErrorRow* trace = find_error(r, "bcast.binomial", "trace");
  ASSERT_NE(trace, nullptr);
  EXPECT_EQ(trace->bucket, (Bucket{1024, 2047}));
  EXPECT_EQ(trace->comm_size, 2);
  EXPECT_EQ(trace->calls, 2);
  EXPECT_EQ(trace->predicted_calls, 2);
  EXPECT_NEAR(trace->mean_actual_s, 0.0025, kTol);
  EXPECT_NEAR(trace->mean_predicted_s, 0.001, kTol);
  // (1 - 3) / 3 and (1 - 2) / 2.
  EXPECT_NEAR(trace->mean_rel_error, (-2.0 / 3.0 - 0.5) / 2.0, kTol);
  EXPECT_NEAR(trace->mean_abs_rel_error, (2.0 / 3.0 + 0.5) / 2.0, kTol);

  const ErrorRow* summary = find_error(r, "bcast.binomial", "summary");
  ASSERT_NE(summary, nullptr);
  EXPECT_EQ(summary->calls, 3);
  EXPECT_EQ(summary->predicted_calls, 3);
  EXPECT_NEAR(summary->mean_actual_s, 0.004, kTol);  // the slower rank's mean
  EXPECT_NEAR(summary->mean_predicted_s, 0.001, kTol);
  EXPECT_NEAR(summary->mean_rel_error, -0.75, kTol);
  EXPECT_NEAR(summary->mean_abs_rel_error, 0.75, kTol);

  const ErrorRow* native = find_error(r, "native", "summary");
  ASSERT_NE(native, nullptr);
  EXPECT_EQ(native->predicted_calls, 0);
  EXPECT_TRUE(std::isnan(native->mean_predicted_s));
  EXPECT_TRUE(std::isnan(native->mean_rel_error));
  // Overflow entries have no algorithm or size to hold an error against.
  EXPECT_EQ(find_error(r, "*", "summary"), nullptr);
}

TEST(Report, SavingsAreMeasuredAndTheModelsGuessesAreEstimatesApart) {
  const Report r = capped_report();
  ASSERT_EQ(r.savings.size(), 2U);
  // Scatter: 4 native calls of this run at the slower rank's mean, 200 us; collsel's 2 calls took
  // 150 us each.
  const SavingRow* scatter = find_saving(r, "scatter");
  ASSERT_NE(scatter, nullptr);
  EXPECT_EQ(scatter->algorithm, "scatter.binomial");
  EXPECT_EQ(scatter->calls, 2);
  EXPECT_EQ(scatter->native_basis, "measured");
  EXPECT_NEAR(scatter->actual_s, 0.0003, kTol);
  EXPECT_NEAR(scatter->native_s, 0.0004, kTol);
  EXPECT_NEAR(scatter->saved_s, 0.0001, kTol);
  EXPECT_NE(scatter->native_note.find("4 native call(s) of this run"), std::string::npos);
  EXPECT_EQ(find_estimate(r, "scatter"), nullptr);  // measured: no estimate beside it

  // Bcast: no native call, so no measured saving; the model's estimate is apart. Below 8 ranks
  // MPICH runs the binomial tree collsel ran, so the model's ratio is 1 and nothing was saved.
  const SavingRow* bcast = find_saving(r, "bcast");
  ASSERT_NE(bcast, nullptr);
  EXPECT_TRUE(bcast->native_basis.empty());
  EXPECT_TRUE(std::isnan(bcast->native_s));
  EXPECT_TRUE(std::isnan(bcast->saved_s));
  EXPECT_NE(bcast->native_note.find("not measured"), std::string::npos) << bcast->native_note;
  const EstimateRow* guess = find_estimate(r, "bcast");
  ASSERT_NE(guess, nullptr);
  EXPECT_EQ(guess->native_algorithm, "bcast.binomial");
  EXPECT_NEAR(guess->native_s, 0.017, kTol);
  EXPECT_NEAR(guess->ratio, 1.0, kTol);
  EXPECT_NEAR(guess->saved_s, 0.0, kTol);
  EXPECT_NEAR(guess->native_predicted_s, guess->ran_predicted_s, kTol);
  EXPECT_NE(guess->how.find("MPIR_Bcast_intra_binomial"), std::string::npos) << guess->how;
  EXPECT_NE(guess->how.find("the measured time x (the model's prediction"), std::string::npos)
      << guess->how;
  // The measured headline counts the measured row only; the estimate has its own total.
  EXPECT_EQ(r.measured_saving_rows, 1);
  EXPECT_NEAR(r.saved_measured_s, scatter->saved_s, kTol);
  EXPECT_NEAR(r.saved_estimated_s, guess->saved_s, kTol);
  EXPECT_NE(r.saving_basis.find("measured"), std::string::npos) << r.saving_basis;
}

TEST(Report, BaselineNativeCallsCountAsMeasured) {
  const logs::RunLog baseline = logs::read_run(kFixtures / "baseline");
  const Report r = capped_report(&baseline);
  EXPECT_NE(r.baseline.find("20261124-090000-p3"), std::string::npos);
  const SavingRow* bcast = find_saving(r, "bcast");
  ASSERT_NE(bcast, nullptr);
  // The baseline's Bcasts took 5 and 8 ms (slowest ranks): 6.5 ms per call, 5 calls.
  EXPECT_EQ(bcast->native_basis, "measured");
  EXPECT_NEAR(bcast->native_s, 5 * 0.0065, kTol);
  EXPECT_NEAR(bcast->saved_s, 5 * 0.0065 - 0.017, kTol);
  EXPECT_NE(bcast->native_note.find("2 native call(s) of the baseline run"), std::string::npos);
  EXPECT_TRUE(r.estimates.empty());  // every shape measured
  EXPECT_EQ(r.measured_saving_rows, 2);
  EXPECT_NEAR(r.saved_measured_s, bcast->saved_s + find_saving(r, "scatter")->saved_s, kTol);
  EXPECT_NE(r.saving_basis.find("baseline run 20261124-090000-p3"), std::string::npos)
      << r.saving_basis;
}

TEST(Report, WithoutAnyNativeCallThereIsNoSavingHeadline) {
  // The capped run without its native Scatters: nothing served was measured against native.
  logs::RunLog log = logs::read_run(kFixtures / "capped");
  std::erase_if(log.calls, [](const logs::LoggedCall& c) { return c.algorithm == "native"; });
  std::erase_if(log.summaries, [](const logs::SummaryRecord& s) { return s.algorithm == "native"; });
  Options options;
  options.estimator = &embedded_estimator();
  const Report r = build_report(log, options);
  ASSERT_FALSE(r.savings.empty());
  EXPECT_EQ(r.measured_saving_rows, 0);
  EXPECT_TRUE(std::isnan(r.saved_measured_s));
  EXPECT_NE(r.saving_basis.find("no native baseline measured"), std::string::npos);
  EXPECT_NE(r.saving_basis.find("COLLSEL_DISABLE=all"), std::string::npos);
  EXPECT_NE(r.saving_basis.find("--baseline"), std::string::npos);
  EXPECT_FALSE(r.estimates.empty());  // the model's guesses stay, apart
  const std::string text = format_text(r);
  EXPECT_NE(text.find("time saved against the native collective: not measured"),
            std::string::npos) << text;
  EXPECT_EQ(text.find("saved (measured)"), std::string::npos) << text;
  EXPECT_NE(text.find("MODEL ESTIMATES, not measurements"), std::string::npos) << text;
  const json doc = json::parse(format_json(r));
  EXPECT_TRUE(doc.at("saved_measured_s").is_null());
  EXPECT_EQ(doc.at("measured_saving_rows"), 0);
}

TEST(Report, WithoutAModelUnmeasuredShapesHaveNoEstimate) {
  const Report r = build_report(logs::read_run(kFixtures / "capped"));
  const SavingRow* bcast = find_saving(r, "bcast");
  ASSERT_NE(bcast, nullptr);
  EXPECT_TRUE(bcast->native_basis.empty());
  EXPECT_TRUE(std::isnan(bcast->native_s));
  EXPECT_TRUE(std::isnan(bcast->saved_s));
  EXPECT_TRUE(r.estimates.empty());
  EXPECT_TRUE(std::isnan(r.saved_estimated_s));
  EXPECT_NEAR(r.saved_measured_s, find_saving(r, "scatter")->saved_s, kTol);
}

TEST(Report, CallsSplitByDifferentTraceCapsCountOnce) {
  const Report r = build_report(logs::read_run(kFixtures / "split_cap"));
  // 6 Bcasts on 0.0: seq 0 traced by both ranks, 1-3 by rank 1 only (rank 0 had summarised them),
  // 4-5 summarised by both. Trace: 4 calls of 2 ms; summary: 7 observations less the 3 that fill
  // the incomplete trace calls = 2 calls at the slower rank's mean, 3 ms.
  const Total* bcast = find_total(r, "bcast", "bcast.binomial");
  ASSERT_NE(bcast, nullptr);
  EXPECT_EQ(bcast->calls, 6);
  EXPECT_NEAR(bcast->time_s, 4 * 0.002 + 2 * 0.003, kTol);
  EXPECT_EQ(bcast->bytes, 6U * 4096U);
  const Total* alone = find_total(r, "bcast", "native");
  ASSERT_NE(alone, nullptr);
  EXPECT_EQ(alone->calls, 3);
}

// Format version 2 with [log] traces_per_site = 2 (fixtures/README.md: sampled/): the first 2
// Bcasts of the site are traced, the 3 later ones summarised on each rank. Every call counts once,
// the header says the traces were sampled, and sampling is no "trace cap reached".
TEST(Report, SampledTracesAndTheirSummariesCountEveryCall) {
  const Report r = report_with_call_sites(logs::read_run(kFixtures / "sampled"));
  EXPECT_TRUE(r.problems.empty()) << r.problems.front();
  // Traced: slowest ranks 3 ms and 2 ms. Summarised: 3 calls at the slowest rank's mean,
  // max(6 ms / 3, 12 ms / 3) = 4 ms.
  const Total* bcast = find_total(r, "bcast", "bcast.binomial");
  ASSERT_NE(bcast, nullptr);
  EXPECT_EQ(bcast->calls, 5);
  EXPECT_NEAR(bcast->time_s, 0.005 + 3 * 0.004, kTol);
  EXPECT_EQ(bcast->bytes, 5U * 1024U);
  ASSERT_EQ(r.rows.size(), 1U);
  EXPECT_EQ(r.rows[0].calls, 2);  // the per-size rows hold the traced calls only
  const ErrorRow* traced = find_error(r, "bcast.binomial", "trace");
  const ErrorRow* summarised = find_error(r, "bcast.binomial", "summary");
  ASSERT_NE(traced, nullptr);
  ASSERT_NE(summarised, nullptr);
  EXPECT_EQ(traced->calls + summarised->calls, 5);
  // One call site (the same offset in the program at each rank's address: the stack ids of the
  // traces and the summaries resolved), 5 calls on each of 2 ranks.
  ASSERT_EQ(r.call_sites.size(), 1U);
  EXPECT_EQ(r.call_sites[0].site, "collsel-fixture-app+0x10ff");
  EXPECT_EQ(r.call_sites[0].calls, 10);
  EXPECT_EQ(r.call_sites[0].ranks, 2);
  EXPECT_EQ(r.sampled_calls, 6);
  EXPECT_EQ(r.traces_per_site, (std::vector<std::string>{"2"}));
  EXPECT_FALSE(has_warning(r, "trace cap")) << (r.warnings.empty() ? "" : r.warnings[0]);
  const std::string text = format_text(r);
  EXPECT_NE(text.find("traces:    sampled: the first 2 calls per call site and shape on each "
                      "rank ([log] traces_per_site); 6 later per-rank calls are in summary "
                      "records"),
            std::string::npos)
      << text;
  const json doc = json::parse(format_json(r));
  EXPECT_EQ(doc.at("sampled_calls"), 6);
  EXPECT_EQ(doc.at("traces_per_site"), json::array({"2"}));
}

TEST(Report, ASummaryLevelRunHasEverySectionButTheTraceRows) {
  Options options;
  options.estimator = &embedded_estimator();
  const Report r = build_report(logs::read_run(kFixtures / "summary_level"), options);
  EXPECT_EQ(r.levels, std::vector<std::string>{"summary"});
  EXPECT_TRUE(r.rows.empty());
  EXPECT_EQ(r.calls, 0U);
  ASSERT_EQ(r.totals.size(), 1U);
  // The largest per-rank sum: 10 calls at 200 us.
  EXPECT_EQ(r.totals[0].calls, 10);
  EXPECT_NEAR(r.totals[0].time_s, 0.002, kTol);
  const ErrorRow* e = find_error(r, "alltoall.bruck", "summary");
  ASSERT_NE(e, nullptr);
  EXPECT_NEAR(e->mean_rel_error, (0.00015 - 0.0002) / 0.0002, kTol);
  ASSERT_EQ(r.savings.size(), 1U);
  EXPECT_TRUE(std::isnan(r.savings[0].saved_s));  // no native call: not measured
  ASSERT_EQ(r.estimates.size(), 1U);
  // Below 8 ranks MPICH exchanges 16 B blocks with "scattered": the windowed stand-in, against
  // the Bruck exchange that ran; the measured 2 ms scaled by the model's ratio of the two.
  const EstimateRow& s = r.estimates[0];
  EXPECT_EQ(s.native_algorithm, "alltoall.windowed");
  const native::NativeEstimator& model = embedded_estimator();
  const auto windowed = model.estimate(Collective::alltoall, 2, 16).predicted_s;
  const auto bruck = model.price(Collective::alltoall, 2, 16, "alltoall.bruck").predicted_s;
  ASSERT_TRUE(windowed && bruck);
  EXPECT_EQ(*windowed, *model.price(Collective::alltoall, 2, 16, "alltoall.windowed", 32)
                            .predicted_s);
  EXPECT_NEAR(s.native_s, 0.002 * *windowed / *bruck, kTol);
  EXPECT_NEAR(s.saved_s, s.native_s - 0.002, kTol);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();  // level summary is no cap
}

TEST(Report, UnknownCollectivesAndDamagedSizesAreReportedNotPriced) {
  logs::LoggedCall c;
  c.run = "r";
  c.comm = "0.0";
  c.comm_size = 1;
  c.coll = "gather";  // a collective of a newer collsel
  c.algorithm = "gather.binomial";
  c.actual_s = 0.001;
  logs::LoggedCall broken = c;
  broken.comm = "0.1";
  broken.coll = "bcast";
  broken.algorithm = "bcast.flat";
  broken.comm_size = 0;
  logs::RunLog log;
  log.calls = {c, broken};
  Options options;
  options.estimator = &embedded_estimator();
  const Report r = build_report(log, options);
  ASSERT_EQ(r.savings.size(), 2U);
  for (const SavingRow& s : r.savings) EXPECT_TRUE(std::isnan(s.saved_s));
  ASSERT_EQ(r.estimates.size(), 2U);
  for (const EstimateRow& e : r.estimates) {
    EXPECT_TRUE(std::isnan(e.saved_s));
    EXPECT_NE(e.how.find("cannot price"), std::string::npos) << e.how;
  }
  EXPECT_EQ(r.totals.size(), 2U);
}

TEST(Report, CallSitesAreKeptToTheTopAndResolvedPerRank) {
  const logs::RunLog log = logs::read_run(kFixtures / "capped");
  const Report r = report_with_call_sites(log);
  ASSERT_FALSE(r.call_sites.empty());
  EXPECT_EQ(r.call_sites_total, r.call_sites.size());
  // The two ranks' addresses differ but fall at the same offset of the same object: one site.
  const CallSiteRow& top = r.call_sites.front();
  EXPECT_EQ(top.coll, "bcast");
  EXPECT_EQ(top.ranks, 2);
  ASSERT_EQ(top.frames.size(), 2U);
  EXPECT_EQ(top.frames[0].object, "/nonexistent/collsel-fixture-app");

  const Report one = report_with_call_sites(log, 1);
  EXPECT_EQ(one.call_sites.size(), 1U);
  EXPECT_EQ(one.call_sites_total, r.call_sites_total);
  EXPECT_GT(one.call_sites_total, 1U);
}

TEST(Report, JsonHoldsTheNewSectionsWithTheirNumbers) {
  const json doc = json::parse(format_json(capped_report()));
  EXPECT_EQ(doc.at("levels"), json::array({"trace"}));
  EXPECT_EQ(doc.at("summarised_calls"), 23);
  EXPECT_TRUE(doc.at("estimate_model").get<std::string>().starts_with("<embedded default"));
  // The estimator's rules (MPICH's, as NativeRules{} says).
  const std::string rules = doc.at("estimate_rules").get<std::string>();
  EXPECT_TRUE(rules.starts_with("MPICH 4.0")) << rules;
  EXPECT_TRUE(doc.at("baseline").is_null());
  const json& total = doc.at("totals").at(0);
  EXPECT_EQ(total.at("algorithm"), "bcast.binomial");
  EXPECT_EQ(total.at("calls"), 5);
  EXPECT_NEAR(total.at("time_s").get<double>(), 0.017, kTol);
  for (const json& e : doc.at("errors")) {
    for (const char* key : {"coll", "algorithm", "bytes_lo", "bytes_hi", "comm_size", "calls",
                            "predicted_calls", "mean_actual_s", "mean_predicted_s",
                            "mean_rel_error", "mean_abs_rel_error", "source"}) {
      EXPECT_TRUE(e.contains(key)) << key;
    }
  }
  const auto scatter = std::find_if(doc.at("savings").begin(), doc.at("savings").end(),
                                    [](const json& s) { return s.at("coll") == "scatter"; });
  ASSERT_NE(scatter, doc.at("savings").end());
  EXPECT_NEAR(scatter->at("saved_s").get<double>(), 0.0001, kTol);
  EXPECT_EQ(scatter->at("native_basis"), "measured");
  EXPECT_EQ(scatter->at("bytes_lo"), 64);
  EXPECT_EQ(scatter->at("bytes_hi"), 127);
  EXPECT_TRUE(doc.at("saved_measured_s").is_number());
  EXPECT_EQ(doc.at("measured_saving_rows"), 1);
  const json& estimate = doc.at("estimates").at(0);
  EXPECT_EQ(estimate.at("coll"), "bcast");
  EXPECT_EQ(estimate.at("native_algorithm"), "bcast.binomial");
  EXPECT_TRUE(estimate.at("how").get<std::string>().find("x (") != std::string::npos);
  for (const json& site : doc.at("call_sites")) {
    for (const char* key : {"site", "frames", "coll", "calls", "time_s", "mean_s", "min_s",
                            "max_s", "algorithms", "ranks"}) {
      EXPECT_TRUE(site.contains(key)) << key;
    }
    for (const json& frame : site.at("frames")) {
      for (const char* key : {"pc", "function", "file", "line", "object", "offset"}) {
        EXPECT_TRUE(frame.contains(key)) << key;
      }
    }
  }
}

// Column `name` of a parsed CSV (header first), or a failure.
std::size_t csv_column(const std::vector<std::vector<std::string>>& lines, std::string_view name) {
  const auto& header = lines.at(0);
  const auto it = std::find(header.begin(), header.end(), name);
  EXPECT_NE(it, header.end()) << name;
  return static_cast<std::size_t>(it - header.begin());
}

TEST(Report, CsvWritesOneSectionWithItsOwnHeader) {
  const Report r = capped_report();
  const auto totals = parse_csv(format_csv(r, Section::totals));
  ASSERT_EQ(totals.size(), r.totals.size() + 1);
  EXPECT_EQ(totals[1][csv_column(totals, "algorithm")], "bcast.binomial");
  EXPECT_NEAR(std::stod(totals[1][csv_column(totals, "time_s")]), 0.017, kTol);

  const auto errors = parse_csv(format_csv(r, Section::errors));
  ASSERT_EQ(errors.size(), r.errors.size() + 1);
  for (const auto& line : errors) EXPECT_EQ(line.size(), errors[0].size());

  const auto savings = parse_csv(format_csv(r, Section::savings));
  ASSERT_EQ(savings.size(), r.savings.size() + 1);
  const std::size_t basis = csv_column(savings, "native_basis");
  const std::size_t saved = csv_column(savings, "saved_s");
  for (std::size_t i = 1; i < savings.size(); ++i) {
    if (savings[i][basis] == "measured") {
      EXPECT_NEAR(std::stod(savings[i][saved]), 1e-4, kTol);
    }
  }

  const auto estimates = parse_csv(format_csv(r, Section::estimates));
  ASSERT_EQ(estimates.size(), r.estimates.size() + 1);
  EXPECT_EQ(estimates[1][csv_column(estimates, "native_algorithm")], "bcast.binomial");

  // Every section has a header even when it has no row.
  const auto empty = parse_csv(format_csv(Report{}, Section::savings));
  ASSERT_EQ(empty.size(), 1U);
  EXPECT_EQ(empty[0], savings[0]);
  EXPECT_EQ(format_csv(r), format_csv(r, Section::rows));  // the default stays the per-size rows
  for (const std::string& name : section_names()) EXPECT_TRUE(section_from_name(name)) << name;
  EXPECT_FALSE(section_from_name("everything"));
}

TEST(Report, TextHasEverySection) {
  const std::string text = format_text(capped_report());
  for (const char* title : {"time per collective and algorithm", "top call sites",
                            "predicted vs actual", "time saved against the native collective",
                            "MODEL ESTIMATES, not measurements",
                            "traced calls by exact size", "WARNING: the trace cap"}) {
    EXPECT_NE(text.find(title), std::string::npos) << title;
  }
}

// Issue 17, item 4: the collectives collsel does not serve, and the share of time it served.
TEST(Report, UncoveredCallsAndTheServedShare) {
  const Report r = build_report(logs::read_run(kFixtures / "uncovered"));
  EXPECT_TRUE(r.problems.empty()) << r.problems.front();
  ASSERT_EQ(r.uncovered.size(), 2U);
  // The largest per-rank count and time, sorted by time.
  EXPECT_EQ(r.uncovered[0].function, "MPI_Allreduce");
  EXPECT_EQ(r.uncovered[0].timing, "whole");
  EXPECT_EQ(r.uncovered[0].calls, 4);
  EXPECT_NEAR(r.uncovered[0].time_s, 0.006, kTol);
  EXPECT_EQ(r.uncovered[0].ranks, 2);
  EXPECT_EQ(r.uncovered[1].function, "MPI_Ibcast");
  EXPECT_EQ(r.uncovered[1].timing, "initiation");
  const Coverage& c = r.coverage;
  EXPECT_TRUE(c.counted);
  EXPECT_NEAR(c.served_s, 0.003, kTol);
  EXPECT_NEAR(c.native_s, 0.001, kTol);
  EXPECT_NEAR(c.uncovered_s, 0.006, kTol);
  EXPECT_NEAR(c.initiation_s, 0.0002, kTol);  // shown, not in the share
  EXPECT_NEAR(c.served_share, 0.3, kTol);
  const std::string text = format_text(r);
  EXPECT_NE(text.find("share served:  30.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("initiation only, not in the share"), std::string::npos) << text;
  const json doc = json::parse(format_json(r));
  EXPECT_NEAR(doc.at("coverage").at("served_share").get<double>(), 0.3, kTol);
  const auto csv = parse_csv(format_csv(r, Section::uncovered));
  ASSERT_EQ(csv.size(), 3U);
  EXPECT_EQ(csv[1][csv_column(csv, "function")], "MPI_Allreduce");
}

TEST(Report, LogsThatDidNotCountUncoveredCallsSayTheShareIsUnknown) {
  const Report r = build_report(logs::read_run(kFixtures / "capped"));
  EXPECT_FALSE(r.coverage.counted);
  EXPECT_TRUE(std::isnan(r.coverage.served_share));
  EXPECT_NE(format_text(r).find("not counted"), std::string::npos);
  EXPECT_TRUE(json::parse(format_json(r)).at("coverage").at("served_share").is_null());
}

// ---- the native estimate (tools/decisions/native_choice.hpp; the rules themselves:
// tests/tools/decisions/native_choice_test.cpp) ---------------------------------------------

TEST(NativeChoice, EstimateIsTheCostTableEntryOfTheStandIn) {
  const native::NativeEstimator& estimator = embedded_estimator();
  Diagnostics diagnostics;
  const auto embedded = tools::load_embedded(diagnostics);
  ASSERT_TRUE(embedded);
  Policy policy;
  policy.window = 32;
  const Decision d = decide({Collective::alltoall, 64, 4096, 0}, ModelSet{nullptr, &*embedded},
                            policy);
  const auto entry = std::find_if(d.table.begin(), d.table.end(), [](const CostEntry& e) {
    return e.name == "alltoall.windowed";
  });
  ASSERT_NE(entry, d.table.end());
  const auto estimate = estimator.estimate(Collective::alltoall, 64, 4096);
  ASSERT_TRUE(estimate.predicted_s);
  EXPECT_DOUBLE_EQ(*estimate.predicted_s, entry->predicted_s);
  EXPECT_EQ(estimate.algorithm, "alltoall.windowed");

  // MPICH's scatter + ring allgather at 1 MiB on 16 ranks: bcast.scatter_allgather's entry.
  const Decision ring = decide({Collective::bcast, 16, 1 << 20, 0},
                               ModelSet{nullptr, &*embedded}, policy);
  const auto ring_entry = std::find_if(ring.table.begin(), ring.table.end(),
                                       [](const CostEntry& e) {
                                         return e.name == "bcast.scatter_allgather";
                                       });
  ASSERT_NE(ring_entry, ring.table.end());
  const auto ring_estimate = estimator.estimate(Collective::bcast, 16, 1 << 20);
  ASSERT_TRUE(ring_estimate.predicted_s);
  EXPECT_DOUBLE_EQ(*ring_estimate.predicted_s, ring_entry->predicted_s);

  // Open MPI's k-nomial Bcast (every size at 64 to 127 ranks) has no stand-in.
  Diagnostics open_mpi_diagnostics;
  std::vector<std::string> notes;
  const auto open_mpi = native::load_estimator(
      std::nullopt, {"<embedded default model>"},
      native::NativeRules{.library = native::NativeLibrary::openmpi, .why = ""},
      open_mpi_diagnostics, notes);
  ASSERT_TRUE(open_mpi);
  const auto none = open_mpi->estimate(Collective::bcast, 100, 1024);
  EXPECT_FALSE(none.predicted_s);
  EXPECT_NE(none.note.find("no estimate"), std::string::npos) << none.note;
}

TEST(NativeChoice, AUserModelMustLoadARunModelMayBeMissing) {
  Diagnostics diagnostics;
  std::vector<std::string> notes;
  EXPECT_FALSE(native::load_estimator(std::string("/nonexistent/model.toml"), {},
                                      native::NativeRules{}, diagnostics, notes));
  EXPECT_TRUE(has_errors(diagnostics));

  diagnostics.clear();
  const auto fallback =
      native::load_estimator(std::nullopt, {"/nonexistent/model.toml"}, native::NativeRules{},
                             diagnostics, notes);
  ASSERT_TRUE(fallback);
  EXPECT_FALSE(fallback->model_path());
  EXPECT_TRUE(fallback->source().starts_with("<embedded default model>"));
  ASSERT_EQ(notes.size(), 1U);
  EXPECT_NE(notes[0].find("not readable here"), std::string::npos);
}

// ---- the command --------------------------------------------------------------------------

using collsel::testing::run_collsel;

TEST(ReportCommand, BaselineAndSectionReachTheOutput) {
  const auto r = run_collsel({"report", (kFixtures / "capped").string(), "--baseline",
                              (kFixtures / "baseline").string(), "--format", "csv", "--section",
                              "savings"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = parse_csv(r.out);
  ASSERT_EQ(lines.size(), 3U) << r.out;
  const std::size_t basis = csv_column(lines, "native_basis");
  for (std::size_t i = 1; i < lines.size(); ++i) EXPECT_EQ(lines[i][basis], "measured");
  EXPECT_NE(r.err.find("WARNING: the trace cap"), std::string::npos) << r.err;
}

// A run under the Open MPI shim (its run records say "mpi":"openmpi") is priced with Open MPI
// 4.1.4's fixed rules: at P = 2, 1 MiB Bcast is its binary tree (MPICH's: binomial) and at P = 3,
// 4 KiB Scatter its basic linear (MPICH's: binomial).
TEST(ReportCommand, AnOpenMpiRunIsPricedWithOpenMpisRules) {
  testing::TempDir dir("report-openmpi");
  for (const auto& entry : fs::directory_iterator(kFixtures / "report_known")) {
    if (!entry.is_directory()) continue;
    const fs::path run = dir.path() / entry.path().filename();
    fs::create_directories(run);
    for (const auto& rank : fs::directory_iterator(entry.path())) {
      std::ifstream in(rank.path());
      std::ofstream out(run / rank.path().filename());
      std::string line;
      bool first = true;
      while (std::getline(in, line)) {
        if (first && line.ends_with("}")) line.insert(line.size() - 1, R"(,"mpi":"openmpi")");
        first = false;
        out << line << '\n';
      }
    }
  }
  const auto r = run_collsel({"report", dir.path().string(), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  const std::string rules = doc.at("estimate_rules").get<std::string>();
  EXPECT_TRUE(rules.starts_with("Open MPI 4.1.4's coll/tuned fixed rules")) << rules;
  std::map<std::string, std::string> stand_in;
  for (const json& e : doc.at("estimates")) {
    stand_in[e.at("coll").get<std::string>()] = e.at("native_algorithm").get<std::string>();
  }
  EXPECT_EQ(stand_in["bcast"], "bcast.binary");
  EXPECT_EQ(stand_in["scatter"], "scatter.flat");
  const auto text = run_collsel({"report", dir.path().string()});
  EXPECT_NE(text.out.find("native choice: Open MPI 4.1.4"), std::string::npos) << text.out;
}

TEST(ReportCommand, TopAndNoSymbolsShapeTheCallSites) {
  const auto r = run_collsel({"report", (kFixtures / "capped").string(), "--format", "json",
                              "--top", "1", "--no-symbols"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  ASSERT_EQ(doc.at("call_sites").size(), 1U);
  EXPECT_GT(doc.at("call_sites_total").get<int>(), 1);
  // Unresolved: the frames keep their addresses only.
  for (const json& frame : doc.at("call_sites").at(0).at("frames")) {
    EXPECT_EQ(frame.at("object"), "");
    EXPECT_GT(frame.at("pc").get<std::uint64_t>(), 0U);
  }
}

TEST(ReportCommand, BadOptionsAreUsageErrorsAndAMissingModelIsUnusable) {
  const std::string run = (kFixtures / "capped").string();
  EXPECT_EQ(run_collsel({"report", run, "--section", "totals"}).exit_code, 2);
  EXPECT_EQ(run_collsel({"report", run, "--format", "csv", "--section", "all"}).exit_code, 2);
  const auto model = run_collsel({"report", run, "--model", "/nonexistent/model.toml"});
  EXPECT_EQ(model.exit_code, 1);
  EXPECT_NE(model.err.find("/nonexistent/model.toml"), std::string::npos) << model.err;
  const auto baseline = run_collsel({"report", run, "--baseline", "/nonexistent/logs"});
  EXPECT_EQ(baseline.exit_code, 1);
  EXPECT_NE(baseline.err.find("--baseline"), std::string::npos) << baseline.err;
}

}  // namespace
}  // namespace collsel::report

// The log reader on hand-written runs (tests/tools/fixtures, described in its README.md).
#include "tools/log_reader.hpp"

#include <algorithm>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "temp_dir.hpp"

namespace collsel::logs {
namespace {

namespace fs = std::filesystem;
using collsel::testing::TempDir;

const fs::path kFixtures{COLLSEL_TOOLS_FIXTURES};
const fs::path kLogDir = kFixtures / "logdir";
constexpr std::string_view kNewRun = "20261123-072101-p12345";
constexpr std::string_view kOldRun = "20261123-070000-p100";

bool has_problem(const RunLog& log, std::string_view where, std::string_view what) {
  return std::any_of(log.problems.begin(), log.problems.end(), [&](const std::string& p) {
    return p.find(where) != std::string::npos && p.find(what) != std::string::npos;
  });
}

std::string all_problems(const RunLog& log) {
  std::string out;
  for (const auto& p : log.problems) out += p + "\n";
  return out;
}

const CallRecord* find_call(const RunLog& log, int world_rank, std::string_view comm,
                            std::int64_t seq) {
  const auto it = std::find_if(log.calls.begin(), log.calls.end(), [&](const CallRecord& c) {
    return c.world_rank == world_rank && c.comm == comm && c.seq == seq;
  });
  return it == log.calls.end() ? nullptr : &*it;
}

TEST(LogReader, PicksTheNewestRunThatHasRankFiles) {
  // zzz-notes sorts after both runs but holds no rank files, so it must be passed over.
  const auto dir = find_run_dir(kLogDir);
  ASSERT_TRUE(dir.has_value());
  EXPECT_EQ(dir->filename(), kNewRun);
  EXPECT_EQ(read_run(kLogDir).run_id, kNewRun);
}

TEST(LogReader, ReadsAllRanksAndCommunicators) {
  const RunLog log = read_run(kLogDir);
  ASSERT_EQ(log.ranks.size(), 3U);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(log.ranks[static_cast<std::size_t>(r)].world_rank, r);
    EXPECT_EQ(log.ranks[static_cast<std::size_t>(r)].world_size, 3);
  }
  EXPECT_EQ(log.ranks[0].host, "node0");
  EXPECT_EQ(log.ranks[1].host, "node1");
  EXPECT_EQ(log.ranks[0].model, "<embedded default model>");
  // rank 0: 3 calls, rank 1: 2 (plus a broken line), rank 2: 3 (plus a mistyped record).
  EXPECT_EQ(log.calls.size(), 8U);

  const CallRecord* sub = find_call(log, 2, "0.1", 0);
  ASSERT_NE(sub, nullptr);
  EXPECT_EQ(sub->comm_rank, 1);
  EXPECT_EQ(sub->comm_size, 2);
  EXPECT_EQ(sub->coll, "bcast");
  EXPECT_EQ(sub->bytes, 65536U);
  EXPECT_EQ(sub->algorithm, "bcast.chain_segmented");
  EXPECT_EQ(sub->segment_bytes, 8192U);
  EXPECT_EQ(sub->rung, "default_model");
  ASSERT_TRUE(sub->predicted_s.has_value());
  EXPECT_DOUBLE_EQ(*sub->predicted_s, 1e-4);
  EXPECT_DOUBLE_EQ(sub->actual_s, 1.3e-4);
  EXPECT_TRUE(sub->simulated);

  const CallRecord* scatter = find_call(log, 1, "0.0", 1);
  ASSERT_NE(scatter, nullptr);
  EXPECT_EQ(scatter->coll, "scatter");
  EXPECT_EQ(scatter->root, 1);
  EXPECT_FALSE(scatter->simulated);  // no "simulated" field: a log from before it existed
}

TEST(LogReader, IgnoresUnknownFields) {
  const RunLog log = read_run(kLogDir);
  // rank 0's run record and first call carry fields the format does not define.
  ASSERT_FALSE(log.ranks.empty());
  EXPECT_EQ(log.ranks[0].run, kNewRun);
  EXPECT_NE(find_call(log, 0, "0.0", 0), nullptr);
  EXPECT_FALSE(has_problem(log, "rank-00000.jsonl:1", "")) << all_problems(log);
  EXPECT_FALSE(has_problem(log, "rank-00000.jsonl:2", "")) << all_problems(log);
}

TEST(LogReader, ReportsBadLinesWithFileAndLineAndGoesOn) {
  const RunLog log = read_run(kLogDir);
  EXPECT_TRUE(has_problem(log, "rank-00001.jsonl:3:", "not valid JSON")) << all_problems(log);
  EXPECT_TRUE(has_problem(log, "rank-00002.jsonl:5:", "'bytes'")) << all_problems(log);
  EXPECT_TRUE(has_problem(log, "rank-00000.jsonl:", "unknown type 'stats'")) << all_problems(log);
  // The record after the broken line was still read.
  EXPECT_NE(find_call(log, 1, "0.0", 1), nullptr);
  EXPECT_EQ(log.problems.size(), 3U) << all_problems(log);
}

TEST(LogReader, ReadsARunDirectoryGivenDirectly) {
  const RunLog log = read_run(kLogDir / kOldRun);
  EXPECT_EQ(log.run_id, kOldRun);
  EXPECT_EQ(log.ranks.size(), 2U);
  EXPECT_EQ(log.calls.size(), 2U);
  EXPECT_TRUE(log.problems.empty()) << all_problems(log);
}

TEST(LogReader, SelectsARunById) {
  EXPECT_EQ(read_run(kLogDir, kOldRun).run_id, kOldRun);
  EXPECT_EQ(read_run(kLogDir / kOldRun, kOldRun).run_id, kOldRun);
  const RunLog missing = read_run(kLogDir, "20000101-000000-p1");
  EXPECT_TRUE(missing.ranks.empty());
  EXPECT_TRUE(has_problem(missing, "20000101-000000-p1", "no run")) << all_problems(missing);
}

TEST(LogReader, SaysWhereItLookedWhenThereAreNoLogs) {
  const RunLog nowhere = read_run(kFixtures / "no-such-dir");
  EXPECT_TRUE(nowhere.ranks.empty());
  EXPECT_TRUE(has_problem(nowhere, "no-such-dir", "no such directory")) << all_problems(nowhere);

  const RunLog empty = read_run(kLogDir / "zzz-notes");
  EXPECT_TRUE(empty.ranks.empty());
  EXPECT_TRUE(has_problem(empty, "zzz-notes", "no rank-*.jsonl")) << all_problems(empty);
}

TEST(LogReader, ReadsNullPredictionAsEmpty) {
  const RunLog log = read_run(kFixtures / "report_known");
  const CallRecord* native = find_call(log, 0, "0.0", 2);
  ASSERT_NE(native, nullptr);
  EXPECT_EQ(native->algorithm, "native");
  EXPECT_FALSE(native->predicted_s.has_value());
}

TEST(LogReader, NotesAFileWithoutEndRecord) {
  const RunLog log = read_run(kFixtures / "disagree");
  ASSERT_EQ(log.ranks.size(), 2U);
  EXPECT_FALSE(log.ranks[1].end_calls.has_value());
  EXPECT_EQ(log.ranks[1].call_records, 3);
  EXPECT_TRUE(has_problem(log, "rank-00001.jsonl", "no 'end' record")) << all_problems(log);
}

TEST(LogReader, SkipsRecordsOfAnotherFormatVersion) {
  const TempDir tmp("logreader-version");
  std::ofstream(tmp.path() / "rank-00000.jsonl")
      << R"({"v":1,"type":"run","run":"r","world_rank":0,"world_size":1,"host":"h",)"
      << R"("collsel_version":"9","config":"c","model":"m"})" << "\n"
      << R"({"v":2,"type":"call","meaning":"changed"})" << "\n"
      << R"({"v":1,"type":"end","run":"r","world_rank":0,"calls":0})" << "\n";
  const RunLog log = read_run(tmp.path());
  EXPECT_TRUE(log.calls.empty());
  EXPECT_TRUE(has_problem(log, "rank-00000.jsonl:2:", "format version 2")) << all_problems(log);
}

TEST(LogReader, ReportsMissingFieldByName) {
  const TempDir tmp("logreader-missing");
  std::ofstream(tmp.path() / "rank-00000.jsonl")
      << R"({"v":1,"type":"run","run":"r","world_rank":0,"world_size":1,"host":"h",)"
      << R"("collsel_version":"9","config":"c","model":"m"})" << "\n"
      << R"({"v":1,"type":"call","run":"r","world_rank":0,"comm":"0.0"})" << "\n"
      << R"({"v":1,"type":"end","run":"r","world_rank":0,"calls":1})" << "\n";
  const RunLog log = read_run(tmp.path());
  EXPECT_TRUE(log.calls.empty());
  EXPECT_TRUE(has_problem(log, "rank-00000.jsonl:2:", "'comm_rank'")) << all_problems(log);
  EXPECT_TRUE(has_problem(log, "rank-00000.jsonl", "counts 1 calls but 0")) << all_problems(log);
}

TEST(LogReader, CountsMissingRankFiles) {
  const TempDir tmp("logreader-ranks");
  std::ofstream(tmp.path() / "rank-00000.jsonl")
      << R"({"v":1,"type":"run","run":"r","world_rank":0,"world_size":4,"host":"h",)"
      << R"("collsel_version":"9","config":"c","model":"m"})" << "\n"
      << R"({"v":1,"type":"end","run":"r","world_rank":0,"calls":0})" << "\n";
  const RunLog log = read_run(tmp.path());
  EXPECT_TRUE(has_problem(log, tmp.path().string(), "1 of 4 rank files")) << all_problems(log);
}

}  // namespace
}  // namespace collsel::logs

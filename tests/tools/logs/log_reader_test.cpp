// The log reader on hand-written runs (tests/tools/fixtures, described in its README.md).
#include "tools/logs/log_reader.hpp"

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

const LoggedCall* find_call(const RunLog& log, int world_rank, std::string_view comm,
                            std::int64_t seq) {
  const auto it = std::find_if(log.calls.begin(), log.calls.end(), [&](const LoggedCall& c) {
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

  const LoggedCall* sub = find_call(log, 2, "0.1", 0);
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

  const LoggedCall* scatter = find_call(log, 1, "0.0", 1);
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
  const LoggedCall* native = find_call(log, 0, "0.0", 2);
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
  EXPECT_TRUE(log.ranks[1].ending.empty());
  EXPECT_EQ(describe_ending(log.ranks[1]), "cut short (no end record: killed by SIGKILL?)");
}

// A rank killed while its log was mapped: whole records, a record cut mid-copy, then the rest of
// the chunk as NUL bytes. The whole records are read; the cut one is one problem, the NULs none.
TEST(LogReader, ReadsACutShortMappedFile) {
  const TempDir dir("log-reader-cut");
  std::ofstream(dir.path() / "rank-00000.jsonl", std::ios::binary)
      << R"({"v":1,"type":"run","run":"r","world_rank":0,"world_size":1,"host":"h",)"
      << R"("collsel_version":"9","config":"c","model":"m"})" << "\n"
      << R"({"v":1,"type":"call","run":"r","world_rank":0,"comm":"0.0","comm_rank":0,)"
      << R"("comm_size":1,"seq":0,"coll":"bcast","bytes":4,"root":0,"algorithm":"native",)"
      << R"("segment_bytes":0,"rung":"native","predicted_s":null,"actual_s":1e-6,"start_s":0})"
      << "\n"
      << R"({"v":1,"type":"call","run":"r","wor)" << std::string(5000, '\0');
  const RunLog log = read_run_dir(dir.path());
  ASSERT_EQ(log.ranks.size(), 1U);
  EXPECT_EQ(log.calls.size(), 1U);
  EXPECT_TRUE(log.ranks[0].cut_padding);
  EXPECT_TRUE(log.ranks[0].ending.empty());
  EXPECT_EQ(log.problems.size(), 2U) << all_problems(log);
  EXPECT_TRUE(has_problem(log, "rank-00000.jsonl:3", "not valid JSON")) << all_problems(log);
  EXPECT_TRUE(has_problem(log, "rank-00000.jsonl", "no 'end' record")) << all_problems(log);
}

TEST(LogReader, SkipsRecordsOfAnotherFormatVersion) {
  const TempDir tmp("logreader-version");
  std::ofstream(tmp.path() / "rank-00000.jsonl")
      << R"({"v":1,"type":"run","run":"r","world_rank":0,"world_size":1,"host":"h",)"
      << R"("collsel_version":"9","config":"c","model":"m"})" << "\n"
      << R"({"v":3,"type":"call","meaning":"changed"})" << "\n"
      << R"({"v":1,"type":"end","run":"r","world_rank":0,"calls":0})" << "\n";
  const RunLog log = read_run(tmp.path());
  EXPECT_TRUE(log.calls.empty());
  EXPECT_TRUE(has_problem(log, "rank-00000.jsonl:2:", "format version 3, but this collsel reads "
                                                      "versions 1 to 2"))
      << all_problems(log);
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

// ---- the records of the summary level and call sites (fixtures/README.md: capped/) ----------

TEST(LogReader, ReadsTheRecordsOfATraceCappedRun) {
  const RunLog log = read_run(kFixtures / "capped");
  EXPECT_TRUE(log.problems.empty()) << all_problems(log);
  ASSERT_EQ(log.ranks.size(), 2U);
  const RunHeader& r0 = log.ranks[0];
  EXPECT_EQ(r0.level, "trace");
  EXPECT_EQ(r0.stack_depth, 2);
  EXPECT_EQ(r0.max_records, 2);
  EXPECT_EQ(r0.call_records, 2);
  EXPECT_EQ(r0.summarised_calls, 9);
  EXPECT_EQ(r0.overflow_calls, 0);
  EXPECT_EQ(log.ranks[1].summarised_calls, 14);
  EXPECT_EQ(log.ranks[1].overflow_calls, 5);

  ASSERT_EQ(r0.modules.size(), 1U);
  EXPECT_EQ(r0.modules[0].path, "/nonexistent/collsel-fixture-app");
  EXPECT_EQ(r0.modules[0].base, 0x400000U);
  EXPECT_EQ(r0.modules[0].start, 0x401000U);
  EXPECT_EQ(r0.modules[0].end, 0x402000U);
  EXPECT_EQ(r0.modules[0].build_id, "");
  EXPECT_EQ(log.ranks[1].modules.at(0).base, 0x500000U);

  const LoggedCall* first = find_call(log, 1, "0.0", 0);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->stack, (std::vector<std::uint64_t>{0x501100, 0x501200}));

  ASSERT_EQ(log.summaries.size(), 7U);  // 3 on rank 0, 4 on rank 1
  const SummaryRecord& bcast = log.summaries[0];
  EXPECT_EQ(bcast.world_rank, 0);
  EXPECT_EQ(bcast.coll, "bcast");
  EXPECT_EQ(bcast.algorithm, "bcast.binomial");
  EXPECT_EQ(bcast.comm_size, 2);
  EXPECT_EQ(bcast.bytes_lo, 1024U);
  EXPECT_EQ(bcast.bytes_hi, 2047U);
  EXPECT_EQ(bcast.stack, (std::vector<std::uint64_t>{0x401100, 0x401200}));
  EXPECT_FALSE(bcast.overflow);
  EXPECT_EQ(bcast.calls, 3);
  EXPECT_EQ(bcast.bytes_sum, 3072U);
  EXPECT_DOUBLE_EQ(bcast.actual_sum_s, 0.006);
  EXPECT_DOUBLE_EQ(bcast.actual_min_s, 0.001);
  EXPECT_DOUBLE_EQ(bcast.actual_max_s, 0.003);
  EXPECT_EQ(bcast.predicted_calls, 3);
  EXPECT_DOUBLE_EQ(bcast.predicted_sum_s, 0.003);
  ASSERT_TRUE(bcast.predicted_min_s.has_value());

  const SummaryRecord& native = log.summaries[1];
  EXPECT_EQ(native.algorithm, "native");
  EXPECT_EQ(native.predicted_calls, 0);
  EXPECT_FALSE(native.predicted_min_s.has_value());  // null: no call had a prediction

  const SummaryRecord& overflow = log.summaries.back();
  EXPECT_TRUE(overflow.overflow);
  EXPECT_EQ(overflow.world_rank, 1);
  EXPECT_EQ(overflow.algorithm, "*");
  EXPECT_EQ(overflow.comm_size, 0);
  EXPECT_TRUE(overflow.stack.empty());
}

TEST(LogReader, LogsWrittenBeforeTheNewFieldsReadWithDefaults) {
  const RunLog log = read_run(kLogDir / kOldRun);
  ASSERT_FALSE(log.ranks.empty());
  for (const RunHeader& h : log.ranks) {
    EXPECT_EQ(h.level, "trace");
    EXPECT_EQ(h.stack_depth, 0);
    EXPECT_EQ(h.max_records, 0);
    EXPECT_EQ(h.summarised_calls, 0);
    EXPECT_EQ(h.overflow_calls, 0);
    EXPECT_TRUE(h.modules.empty());
    EXPECT_EQ(h.max_bytes, 0U);
    // Before issue 20 only MPI_Finalize wrote an end record.
    EXPECT_EQ(h.ending, "finalize");
    EXPECT_EQ(h.ending_code, 0);
    EXPECT_EQ(h.unwritten_calls, 0);
    EXPECT_EQ(describe_ending(h), "MPI_Finalize");
  }
  for (const LoggedCall& c : log.calls) EXPECT_TRUE(c.stack.empty());
  EXPECT_TRUE(log.summaries.empty());
  EXPECT_TRUE(log.problems.empty()) << all_problems(log);
}

// A one-rank run file: the run record, `body`, then an end record with these counts.
void write_rank_file(const fs::path& dir, const std::string& body, int calls, int summarised) {
  std::ofstream(dir / "rank-00000.jsonl")
      << R"({"v":1,"type":"run","run":"r","world_rank":0,"world_size":1,"host":"h",)"
      << R"("collsel_version":"9","config":"c","model":"m","level":"summary"})" << "\n"
      << body
      << R"({"v":1,"type":"end","run":"r","world_rank":0,"calls":)" << calls
      << R"(,"summarised_calls":)" << summarised << R"(,"overflow_calls":0})" << "\n";
}

std::string summary_line(std::string_view calls, std::string_view stack = "[]") {
  return std::string(R"({"v":1,"type":"summary","run":"r","world_rank":0,"comm_size":1,)") +
         R"("coll":"bcast","algorithm":"bcast.flat","rung":"model","bytes_lo":4,"bytes_hi":7,)" +
         R"("stack":)" + std::string(stack) + R"(,"overflow":false,"calls":)" +
         std::string(calls) +
         R"(,"bytes_sum":8,"actual_sum_s":0.5,"actual_min_s":0.2,"actual_max_s":0.3,)" +
         R"("predicted_calls":0,"predicted_sum_s":0,"predicted_min_s":null,)" +
         R"("predicted_max_s":null})" + "\n";
}

TEST(LogReader, ChecksTheSummarisedCountOfTheEndRecord) {
  const TempDir tmp("logreader-summarised");
  write_rank_file(tmp.path(), summary_line("2"), 0, 3);
  const RunLog log = read_run(tmp.path());
  EXPECT_EQ(log.summaries.size(), 1U);
  EXPECT_EQ(log.ranks.at(0).level, "summary");
  EXPECT_TRUE(has_problem(log, "rank-00000.jsonl", "counts 3 summarised calls but the summary "
                                                   "records read hold 2"))
      << all_problems(log);
}

TEST(LogReader, SkipsUnsoundSummaryRecordsNamingTheField) {
  const TempDir tmp("logreader-bad-summary");
  write_rank_file(tmp.path(), summary_line("0") + summary_line("1", R"([1,"x"])"), 0, 0);
  const RunLog log = read_run(tmp.path());
  EXPECT_TRUE(log.summaries.empty());
  // A summary of no call would divide by zero in the report.
  EXPECT_TRUE(has_problem(log, "rank-00000.jsonl:2:", "'calls' is 0")) << all_problems(log);
  EXPECT_TRUE(has_problem(log, "rank-00000.jsonl:3:", "'stack'")) << all_problems(log);
}

// ---- format version 1 as its writer wrote it, version 2 by hand (fixtures/README.md) ----------

// A run written by the version 1 writer (collsel before format 2): every record carries its run
// and world rank, call sites are arrays, defaults are written out. It must still read whole.
TEST(LogReader, ReadsALogOfTheVersion1Writer) {
  const RunLog log = read_run(kFixtures / "v1_writer");
  EXPECT_TRUE(log.problems.empty()) << all_problems(log);
  EXPECT_EQ(log.run_id, "20261126-042029-p25348");
  ASSERT_EQ(log.ranks.size(), 2U);
  for (const RunHeader& h : log.ranks) {
    EXPECT_EQ(h.level, "trace");
    EXPECT_EQ(h.stack_depth, 2);
    EXPECT_EQ(h.max_records, 3);
    EXPECT_EQ(h.traces_per_site, 0U);  // version 1 did not sample
    EXPECT_EQ(h.call_records, 3);
    EXPECT_EQ(h.summarised_calls, 2);
    EXPECT_EQ(h.sampled_calls, 0);
    EXPECT_EQ(h.ending, "finalize");
    EXPECT_EQ(h.modules.size(), 45U);
  }
  ASSERT_EQ(log.calls.size(), 6U);
  for (const LoggedCall& c : log.calls) {
    EXPECT_EQ(c.run, log.run_id);
    EXPECT_EQ(c.algorithm, "bcast.flat");
    EXPECT_EQ(c.bytes, 4U);
    ASSERT_EQ(c.stack.size(), 2U);
    // The innermost frame is the program's (the first module record of its rank).
    const Module& program = log.ranks.at(static_cast<std::size_t>(c.world_rank)).modules.at(0);
    EXPECT_TRUE(program.path.ends_with("/endings")) << program.path;
    EXPECT_TRUE(program.start <= c.stack[0] - 1 && c.stack[0] - 1 < program.end);
  }
  EXPECT_EQ(find_call(log, 1, "0.0", 2)->comm_rank, 1);
  ASSERT_EQ(log.summaries.size(), 2U);
  EXPECT_EQ(log.summaries[1].world_rank, 1);
  EXPECT_EQ(log.summaries[1].calls, 2);
  EXPECT_EQ(log.summaries[1].stack, find_call(log, 1, "0.0", 0)->stack);
  ASSERT_EQ(log.uncovered.size(), 2U);
  EXPECT_EQ(log.uncovered[0].function, "MPI_Barrier");
}

constexpr std::string_view kV2Run =
    R"({"v":2,"type":"run","run":"r2","world_rank":3,"world_size":4,"host":"h",)"
    R"("level":"trace","stack_depth":2,"traces_per_site":32,"collsel_version":"9",)"
    R"("config":"c","model":"m"})"
    "\n";

// Format version 2: records take their run and world rank from the run record, call sites from
// the `stack` records their ids name, and the fields left out their defaults.
TEST(LogReader, ReadsAVersion2Log) {
  const TempDir tmp("logreader-v2");
  std::ofstream(tmp.path() / "rank-00003.jsonl")
      << kV2Run
      << R"({"v":2,"type":"stack","id":1,"pcs":[4198400,4198512]})" << "\n"
      << R"({"v":2,"type":"call","comm":"0.0","comm_rank":3,"comm_size":4,"seq":0,)"
      << R"("coll":"bcast","bytes":4,"algorithm":"native","rung":"native","actual_s":1e-06,)"
      << R"("start_s":0.5,"stack":1})" << "\n"
      << R"({"v":2,"type":"call","comm":"0.0","comm_rank":3,"comm_size":4,"seq":1,)"
      << R"("coll":"bcast","bytes":4096,"root":2,"algorithm":"bcast.binomial_segmented",)"
      << R"("segment_bytes":1024,"rung":"model","predicted_s":2.5e-05,"simulated":true,)"
      << R"("actual_s":3e-05,"setup_s":0.001,"start_s":0.75})" << "\n"
      << R"({"v":2,"type":"summary","comm_size":4,"coll":"bcast","algorithm":"native",)"
      << R"("rung":"native","bytes_lo":4,"bytes_hi":7,"stack":1,"calls":9,"bytes_sum":36,)"
      << R"("actual_sum_s":9e-06,"actual_min_s":1e-06,"actual_max_s":1e-06,)"
      << R"("predicted_calls":0,"predicted_sum_s":0})" << "\n"
      << R"({"v":2,"type":"uncovered","function":"MPI_Allreduce","timing":"whole","calls":2,)"
      << R"("time_s":0.002})" << "\n"
      << R"({"v":2,"type":"end","calls":2,"summarised_calls":9,"sampled_calls":9,)"
      << R"("uncovered_counted":true,"ending":"finalize"})" << "\n";
  const RunLog log = read_run(tmp.path());
  EXPECT_TRUE(has_problem(log, tmp.path().string(), "1 of 4 rank files")) << all_problems(log);
  EXPECT_EQ(log.problems.size(), 1U) << all_problems(log);
  ASSERT_EQ(log.ranks.size(), 1U);
  const RunHeader& h = log.ranks[0];
  EXPECT_EQ(h.run, "r2");
  EXPECT_EQ(h.world_rank, 3);
  EXPECT_EQ(h.traces_per_site, 32U);
  EXPECT_EQ(h.max_bytes, 0U);
  EXPECT_EQ(h.sampled_calls, 9);
  EXPECT_EQ(h.summarised_calls, 9);
  EXPECT_EQ(h.ending_code, 0);

  ASSERT_EQ(log.calls.size(), 2U);
  // Every default left out reads back as its default: LogRoundTrip.DefaultsLeftOutReadBack.
  const LoggedCall& plain = log.calls[0];
  EXPECT_EQ(plain.run, "r2");
  EXPECT_EQ(plain.world_rank, 3);
  EXPECT_FALSE(plain.predicted_s.has_value());
  EXPECT_EQ(plain.stack, (std::vector<std::uint64_t>{4198400, 4198512}));
  const LoggedCall& full = log.calls[1];
  EXPECT_EQ(full.root, 2);
  EXPECT_EQ(full.segment_bytes, 1024U);
  EXPECT_DOUBLE_EQ(full.predicted_s.value_or(0.0), 2.5e-5);
  EXPECT_TRUE(full.simulated);
  EXPECT_DOUBLE_EQ(full.setup_s, 1e-3);
  EXPECT_TRUE(full.stack.empty());

  ASSERT_EQ(log.summaries.size(), 1U);
  const SummaryRecord& s = log.summaries[0];
  EXPECT_EQ(s.run, "r2");
  EXPECT_EQ(s.world_rank, 3);
  EXPECT_EQ(s.stack, plain.stack);
  EXPECT_FALSE(s.overflow);
  EXPECT_FALSE(s.predicted_min_s.has_value());
  ASSERT_EQ(log.uncovered.size(), 1U);
  EXPECT_EQ(log.uncovered[0].world_rank, 3);
}

// A log cut short after a `stack` record and its call, then the mapped chunk's NUL bytes: both
// read. An id no `stack` record defined (a damaged file) leaves that call site empty, with one
// problem; a version 2 file without its run record takes its rank from the file's name.
TEST(LogReader, Version2CallSitesCutShortAndUnknown) {
  const TempDir tmp("logreader-v2-cut");
  std::ofstream(tmp.path() / "rank-00003.jsonl", std::ios::binary)
      << kV2Run << R"({"v":2,"type":"stack","id":1,"pcs":[4198400]})" << "\n"
      << R"({"v":2,"type":"call","comm":"0.0","comm_rank":3,"comm_size":4,"seq":0,)"
      << R"("coll":"bcast","bytes":4,"algorithm":"native","rung":"native","actual_s":1e-06,)"
      << R"("start_s":0.5,"stack":1})" << "\n"
      << R"({"v":2,"type":"call","comm":"0.0","comm_rank":3,"comm_size":4,"seq":1,)"
      << R"("coll":"bcast","bytes":4,"algorithm":"native","rung":"native","actual_s":1e-06,)"
      << R"("start_s":0.6,"stack":7})" << "\n"
      << R"({"v":2,"type":"stack","id":2,"pcs":[41)" << std::string(3000, '\0');
  std::ofstream(tmp.path() / "rank-00002.jsonl")
      << R"({"v":2,"type":"call","comm":"0.0","comm_rank":2,"comm_size":4,"seq":0,)"
      << R"("coll":"bcast","bytes":4,"algorithm":"native","rung":"native","actual_s":2e-06,)"
      << R"("start_s":0.5})" << "\n";
  const RunLog log = read_run(tmp.path());
  ASSERT_EQ(log.calls.size(), 3U);
  const LoggedCall* cut = find_call(log, 3, "0.0", 0);
  ASSERT_NE(cut, nullptr);
  EXPECT_EQ(cut->stack, (std::vector<std::uint64_t>{4198400}));
  const LoggedCall* unknown = find_call(log, 3, "0.0", 1);
  ASSERT_NE(unknown, nullptr);
  EXPECT_TRUE(unknown->stack.empty());
  EXPECT_TRUE(has_problem(log, "rank-00003.jsonl", "1 record(s) name a call site with no 'stack' "
                                                   "record before them (the first: id 7)"))
      << all_problems(log);
  EXPECT_TRUE(has_problem(log, "rank-00003.jsonl:5", "not valid JSON")) << all_problems(log);
  EXPECT_TRUE(log.ranks.at(0).cut_padding);
  // rank-00002.jsonl: no run record; its call is rank 2's of this run directory.
  const LoggedCall* orphan = find_call(log, 2, "0.0", 0);
  ASSERT_NE(orphan, nullptr);
  EXPECT_EQ(orphan->run, tmp.path().filename().string());
  EXPECT_TRUE(has_problem(log, "rank-00002.jsonl", "no valid 'run' record")) << all_problems(log);
}

}  // namespace
}  // namespace collsel::logs

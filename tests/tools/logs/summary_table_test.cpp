// The summary table file (common/summary_table_format.hpp) from writer to reader: the shim's table
// (pmpi/call_summary.cpp) lives in a shared mapping of rank-NNNNN.summary, and a rank that dies
// before writing its summary records (SIGKILL, a fatal signal) leaves it for the reader
// (tools/logs/log_reader.cpp), which turns it back into the summary records a clean ending would
// have written. A clean ending deletes it; a damaged one gives one problem, never a crash.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "common/summary_table_format.hpp"
#include "pmpi/call_log.hpp"
#include "pmpi/call_summary.hpp"
#include "temp_dir.hpp"
#include "tools/logs/log_reader.hpp"

namespace collsel {
namespace {

namespace fs = std::filesystem;

constexpr int kCalls = 1000;
constexpr std::uint64_t kTraces = 4;  // [log] traces_per_site of the runs below

pmpi::CallRecord call(int i) {
  pmpi::CallRecord r;
  std::snprintf(r.comm.data(), r.comm.size(), "0.0");
  r.comm_rank = 0;
  r.comm_size = 4;
  r.seq = static_cast<std::uint64_t>(i);
  // Two call sites x two algorithms, and every tenth call a scatter from a third site.
  const bool scatter = i % 10 == 9;
  r.coll = scatter ? Collective::scatter : Collective::bcast;
  r.algorithm = scatter ? "scatter.flat" : (i % 2 == 0 ? "bcast.binomial" : "bcast.flat");
  r.bytes = 1000 + static_cast<std::uint64_t>(i % 7);
  r.rung = i % 2 == 0 ? Rung::default_model : Rung::override_algorithm;
  r.predicted_s = i % 2 == 0 ? 1e-6 * (1 + i % 5) : std::nan("");
  r.actual_s = 2e-6 * (1 + i % 3);
  r.start_s = 1e-3 * i;
  r.site.depth = 2;
  r.site.pcs = {0x401000 + 0x10 * static_cast<std::uint64_t>(scatter ? 2 : i % 4 / 2), 0x402000};
  return r;
}

pmpi::RunInfo info(std::uint64_t traces_per_site) {
  return {"run-5", 0, 1, "n0", "c", "m", LogLevel::trace, 4, 100000, "mpich", 0, traces_per_site};
}

// A child process logs kCalls calls, then ends as `how` says: SIGKILL, the signal path then
// SIGSEGV's default action, or a clean close. The parent waits for it.
enum class End { kill, signal, close };

void log_in_child(const fs::path& run_dir, End how) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::string error;
    pmpi::CallLog log((run_dir / "rank-00000.jsonl").string(), info(kTraces), 64, error);
    if (!error.empty()) _exit(3);
    // The counts of calls run without a record live in the table's file too (issue 20).
    pmpi::uncovered::reset();
    log.keep_uncovered_counts(true);
    for (int i = 0; i < 3; ++i) pmpi::uncovered::add(pmpi::uncovered::Id::allreduce, 1e-3);
    pmpi::uncovered::add(pmpi::uncovered::Id::bcast_before_serving, 2e-6);
    for (int i = 0; i < kCalls; ++i) log.add(call(i));
    if (how == End::kill) raise(SIGKILL);
    if (how == End::signal) {
      log.end_from_signal(SIGSEGV);
      signal(SIGSEGV, SIG_DFL);
      raise(SIGSEGV);
    }
    log.add_uncovered(pmpi::uncovered::snapshot(true), true);
    log.close();
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  if (how == End::close) {
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  } else {
    ASSERT_TRUE(WIFSIGNALED(status)) << status;
  }
}

// A run folder in `dir` holding the log of a child that ended as `how`.
fs::path logged_run(const testing::TempDir& dir, End how) {
  const fs::path run_dir = dir.path() / "run-5";
  fs::create_directories(run_dir);
  log_in_child(run_dir, how);
  return run_dir;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

std::int64_t summarised(const logs::RunLog& log) {
  std::int64_t n = 0;
  for (const auto& s : log.summaries) n += s.calls;
  return n;
}

// What a clean ending writes is what a killed rank's table reads back as: the same summaries,
// field by field, only marked recovered.
TEST(SummaryTable, AKilledRanksTableReadsBackAsTheRecordsACleanEndingWrites) {
  testing::TempDir dir("summary-table-kill");
  const fs::path clean = dir.path() / "clean" / "run-5";
  const fs::path killed = dir.path() / "killed" / "run-5";
  fs::create_directories(clean);
  fs::create_directories(killed);
  log_in_child(clean, End::close);
  log_in_child(killed, End::kill);
  EXPECT_FALSE(fs::exists(clean / "rank-00000.summary"));  // a clean ending deletes it
  EXPECT_TRUE(fs::exists(killed / "rank-00000.summary"));
  EXPECT_EQ(fs::file_size(killed / "rank-00000.summary"),
            summary_table::file_bytes(64, kCollectives.size(), pmpi::uncovered::kFunctions));

  const logs::RunLog want = logs::read_run_dir(clean);
  const logs::RunLog got = logs::read_run_dir(killed);
  EXPECT_TRUE(want.problems.empty()) << want.problems.front();
  ASSERT_EQ(got.problems.size(), 1u);  // the missing end record, and nothing about the table
  EXPECT_NE(got.problems[0].find("no 'end' record"), std::string::npos) << got.problems[0];
  ASSERT_EQ(got.ranks.size(), 1u);
  const logs::RunHeader& h = got.ranks[0];
  EXPECT_TRUE(h.summaries_recovered);
  EXPECT_FALSE(want.ranks.at(0).summaries_recovered);
  EXPECT_TRUE(h.ending.empty());

  // Five keys (2 sites x 2 algorithms of bcast, 1 of scatter), kTraces calls each traced.
  EXPECT_EQ(got.calls.size(), 5 * kTraces);
  EXPECT_EQ(static_cast<std::int64_t>(got.calls.size()) + summarised(got), kCalls);
  EXPECT_EQ(h.summarised_calls, kCalls - 5 * static_cast<std::int64_t>(kTraces));
  EXPECT_EQ(h.sampled_calls, h.summarised_calls);
  EXPECT_EQ(h.sampled_calls, want.ranks.at(0).sampled_calls);
  EXPECT_EQ(h.overflow_calls, 0);
  EXPECT_EQ(h.unwritten_calls, 0);

  ASSERT_EQ(got.summaries.size(), want.summaries.size());
  for (std::size_t i = 0; i < want.summaries.size(); ++i) {
    const logs::SummaryRecord& w = want.summaries[i];
    const logs::SummaryRecord& g = got.summaries[i];
    SCOPED_TRACE(i);
    EXPECT_TRUE(g.recovered);
    EXPECT_FALSE(w.recovered);
    EXPECT_EQ(g.run, "run-5");
    EXPECT_EQ(g.world_rank, 0);
    EXPECT_EQ(g.comm_size, w.comm_size);
    EXPECT_EQ(g.coll, w.coll);
    EXPECT_EQ(g.algorithm, w.algorithm);
    EXPECT_EQ(g.rung, w.rung);
    EXPECT_EQ(g.bytes_lo, w.bytes_lo);
    EXPECT_EQ(g.bytes_hi, w.bytes_hi);
    EXPECT_EQ(g.stack, w.stack);  // the pcs themselves: no stack record needed
    EXPECT_EQ(g.overflow, w.overflow);
    EXPECT_EQ(g.calls, w.calls);
    EXPECT_EQ(g.bytes_sum, w.bytes_sum);
    EXPECT_DOUBLE_EQ(g.actual_sum_s, w.actual_sum_s);
    EXPECT_DOUBLE_EQ(g.actual_min_s, w.actual_min_s);
    EXPECT_DOUBLE_EQ(g.actual_max_s, w.actual_max_s);
    EXPECT_EQ(g.predicted_calls, w.predicted_calls);
    EXPECT_DOUBLE_EQ(g.predicted_sum_s, w.predicted_sum_s);
    EXPECT_EQ(g.predicted_min_s, w.predicted_min_s);
    EXPECT_EQ(g.predicted_max_s, w.predicted_max_s);
  }

  // The uncovered counts: what the clean ending wrote as records, the killed rank's table holds.
  EXPECT_TRUE(h.uncovered_counted);
  ASSERT_EQ(want.uncovered.size(), 2u);
  ASSERT_EQ(got.uncovered.size(), want.uncovered.size());
  for (std::size_t i = 0; i < want.uncovered.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(got.uncovered[i].run, "run-5");
    EXPECT_EQ(got.uncovered[i].function, want.uncovered[i].function);
    EXPECT_EQ(got.uncovered[i].timing, want.uncovered[i].timing);
    EXPECT_EQ(got.uncovered[i].reason, want.uncovered[i].reason);
    EXPECT_EQ(got.uncovered[i].calls, want.uncovered[i].calls);
    EXPECT_NEAR(got.uncovered[i].time_s, want.uncovered[i].time_s, 1e-9);
  }
  EXPECT_EQ(got.uncovered[0].function, "MPI_Allreduce");
  EXPECT_EQ(got.uncovered[0].calls, 3);
  EXPECT_EQ(got.uncovered[1].reason, "before_serving");
}

// A rank SIGKILLed while ending cleanly, after its summary and uncovered records but before its
// end record, has deleted its table's file: the records it wrote are read as its summaries.
TEST(SummaryTable, ARankKilledJustBeforeItsEndRecordKeepsItsSummaryRecords) {
  testing::TempDir dir("summary-table-before-end");
  const fs::path run_dir = logged_run(dir, End::close);
  const fs::path log = run_dir / "rank-00000.jsonl";
  const std::string text = read_file(log);
  const std::size_t end = text.rfind("{\"v\":2,\"type\":\"end\"");
  ASSERT_NE(end, std::string::npos);
  write_file(log, text.substr(0, end));
  const logs::RunLog got = logs::read_run_dir(run_dir);
  ASSERT_EQ(got.ranks.size(), 1u);
  const logs::RunHeader& h = got.ranks[0];
  EXPECT_TRUE(h.ending.empty());
  EXPECT_FALSE(h.summaries_recovered);
  EXPECT_EQ(h.summarised_calls, kCalls - 5 * static_cast<std::int64_t>(kTraces));
  EXPECT_EQ(h.summarised_calls, summarised(got));
  EXPECT_EQ(got.uncovered.size(), 2u);  // the records, not the (deleted) table
}

// A fatal signal's handler writes only the end record (it cannot format the summaries): the table
// is recovered, and the calls the end record counted as unwritten are not any more.
TEST(SummaryTable, ASignalledRanksTableIsRecovered) {
  testing::TempDir dir("summary-table-signal");
  const fs::path run_dir = logged_run(dir, End::signal);
  const logs::RunLog got = logs::read_run_dir(run_dir);
  EXPECT_TRUE(got.problems.empty()) << got.problems.front();
  ASSERT_EQ(got.ranks.size(), 1u);
  const logs::RunHeader& h = got.ranks[0];
  EXPECT_EQ(h.ending, "signal");
  EXPECT_EQ(h.ending_code, SIGSEGV);
  EXPECT_TRUE(h.summaries_recovered);
  EXPECT_EQ(h.unwritten_calls, 0);
  EXPECT_EQ(static_cast<std::int64_t>(got.calls.size()) + summarised(got), kCalls);
  EXPECT_EQ(h.summarised_calls, summarised(got));
  EXPECT_TRUE(h.uncovered_counted);  // the handler wrote no uncovered records: from the table
  EXPECT_EQ(got.uncovered.size(), 2u);
}

// The table's keys past its capacity go to the overflow entries, in the file too.
TEST(SummaryTable, OverflowEntriesAndNamesReadBack) {
  testing::TempDir dir("summary-table-overflow");
  const fs::path path = dir.path() / "rank-00000.summary";
  std::string error;
  pmpi::CallSummary t(2, path.string(), error);
  ASSERT_TRUE(error.empty()) << error;
  for (int i = 0; i < 30; ++i) {
    const pmpi::CallRecord r = call(i);
    pmpi::SummaryKey key{r.site, r.algorithm, r.coll, r.comm_size, pmpi::size_bucket(r.bytes)};
    t.add(key, r.rung, r.bytes, r.actual_s, r.predicted_s);
  }
  std::string problem;
  const auto read = logs::read_summary_table(path, problem);  // while the writer still has it
  ASSERT_TRUE(read.has_value()) << problem;
  EXPECT_EQ(read->calls, 30);
  EXPECT_EQ(read->overflow_calls, static_cast<std::int64_t>(t.overflow_calls()));
  ASSERT_EQ(read->summaries.size(), 4u);  // 2 keyed, the bcast and scatter overflow entries
  EXPECT_EQ(read->summaries[0].algorithm, "bcast.binomial");
  EXPECT_EQ(read->summaries[1].algorithm, "bcast.flat");
  EXPECT_EQ(read->summaries[2].algorithm, "*");
  EXPECT_TRUE(read->summaries[2].overflow);
  EXPECT_EQ(read->summaries[2].coll, "bcast");
  EXPECT_EQ(read->summaries[3].coll, "scatter");
  EXPECT_EQ(read->summaries[3].comm_size, 0);
  EXPECT_TRUE(read->summaries[3].stack.empty());
  t.remove_file();
  EXPECT_FALSE(fs::exists(path));
}

// A damaged table (truncated, foreign, an entry out of range) gives one problem line naming it,
// and the rank's other records still read.
TEST(SummaryTable, ADamagedTableGivesOneProblemNeverACrash) {
  testing::TempDir dir("summary-table-damaged");
  const fs::path run_dir = logged_run(dir, End::kill);
  const fs::path table = run_dir / "rank-00000.summary";
  const std::string bytes = read_file(table);
  const auto damaged = [&](const std::string& content, std::string_view expected) {
    write_file(table, content);
    const logs::RunLog got = logs::read_run_dir(run_dir);
    ASSERT_EQ(got.problems.size(), 2u) << expected;  // the table, and the missing end record
    EXPECT_NE(got.problems[0].find("rank-00000.summary cannot be read"), std::string::npos)
        << got.problems[0];
    EXPECT_NE(got.problems[0].find(expected), std::string::npos) << got.problems[0];
    EXPECT_NE(got.problems[1].find("no 'end' record"), std::string::npos) << got.problems[1];
    EXPECT_TRUE(got.summaries.empty());
    EXPECT_EQ(got.calls.size(), 5 * kTraces);
    EXPECT_FALSE(got.ranks.at(0).summaries_recovered);
  };
  damaged(bytes.substr(0, bytes.size() - 100), "truncated");
  damaged(bytes.substr(0, 10), "shorter than");
  damaged("", "shorter than");
  damaged(std::string(bytes.size(), 'x'), "not a collsel summary table");
  std::string other_version = bytes;
  other_version[8] = 9;  // Header::version
  damaged(other_version, "format version 9");
  // The first keyed entry's collective index (after the header and the overflow entries).
  std::string bad_entry = bytes;
  bad_entry[sizeof(summary_table::Header) +
            kCollectives.size() * sizeof(summary_table::Entry) +
            offsetof(summary_table::Entry, coll)] = 100;
  damaged(bad_entry, "entry");

  // Version 1 (no uncovered counters; the field was reserved, 0) still reads.
  std::string version1 = bytes.substr(
      0, bytes.size() - pmpi::uncovered::kFunctions * sizeof(summary_table::Uncovered));
  version1[8] = 1;
  const std::uint32_t none = 0;
  std::memcpy(version1.data() + offsetof(summary_table::Header, uncovered_entries), &none,
              sizeof none);
  write_file(table, version1);
  const logs::RunLog got = logs::read_run_dir(run_dir);
  ASSERT_EQ(got.problems.size(), 1u) << got.problems.front();  // the missing end record
  EXPECT_TRUE(got.ranks.at(0).summaries_recovered);
  EXPECT_TRUE(got.uncovered.empty());
  EXPECT_FALSE(got.ranks.at(0).uncovered_counted);
}

// A table file that cannot be created says why, and the table still works in memory.
TEST(SummaryTable, ATableFileThatCannotBeCreatedSaysWhy) {
  std::string error;
  pmpi::CallSummary t(4, "/nonexistent-dir/rank-00000.summary", error);
  EXPECT_NE(error.find("cannot create /nonexistent-dir/rank-00000.summary"), std::string::npos)
      << error;
  EXPECT_TRUE(t.path().empty());
  pmpi::SummaryKey key{{}, "bcast.flat", Collective::bcast, 2, 1};
  EXPECT_TRUE(t.add(key, Rung::native, 1, 1e-6, std::nan("")));
  EXPECT_EQ(t.calls(), 1u);
}

}  // namespace
}  // namespace collsel

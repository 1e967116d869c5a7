// The log format round trip: the shim's writer (pmpi/call_log.cpp) writes every record kind and
// the reader (tools/logs/log_reader.cpp) must give back exactly what was written, field by field.
// Both sides walk common/log_schema.hpp; this test is what catches a field one of them drops,
// renames or retypes, a default the writer leaves out that the reader does not restore, or a call
// site id that does not resolve.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "pmpi/call_log.hpp"
#include "pmpi/loaded_objects.hpp"
#include "selector/policy.hpp"
#include "temp_dir.hpp"
#include "tools/logs/log_reader.hpp"

namespace collsel {
namespace {

pmpi::CallRecord traced_call() {
  pmpi::CallRecord r;
  std::snprintf(r.comm.data(), r.comm.size(), "3.7");
  r.comm_rank = 1;
  r.comm_size = 5;
  r.seq = 42;
  r.coll = Collective::alltoall;
  r.bytes = 65536;
  r.root = 0;
  r.algorithm = "alltoall.windowed";
  r.segment_bytes = 0;
  r.window = 3;
  r.rung = Rung::calibrated_model;
  r.predicted_s = 1.25e-3;
  r.simulated = true;
  r.actual_s = 2.5e-3;
  r.setup_s = 7.5e-4;
  r.start_s = 0.125;
  r.site.depth = 3;
  r.site.pcs = {0x401000, 0x7f0000001234, 0xffffffffffffff00};
  return r;
}

// Past the trace cap of 1: summarised, with no prediction (null min/max in the record).
pmpi::CallRecord summarised_call() {
  pmpi::CallRecord r = traced_call();
  r.coll = Collective::bcast;
  r.algorithm = "bcast.binomial";
  r.comm_size = 4;
  r.bytes = 3000;
  r.rung = Rung::default_model;
  r.predicted_s = std::nan("");
  r.actual_s = 4e-6;
  r.site.depth = 1;
  r.site.pcs = {0x500000};
  return r;
}

TEST(LogRoundTrip, EveryRecordKindReadsBackAsWritten) {
  testing::TempDir dir("log-roundtrip");
  const auto run_dir = dir.path() / "run-7";
  std::filesystem::create_directories(run_dir);
  const pmpi::RunInfo info{"run-7", 3, 5, "node \"a\"\\b", "conf.toml", "model.toml",
                           LogLevel::trace, 4, 1, "openmpi", 1 << 20, 7};
  std::string error;
  // Two entries: the traced call's key (counted against traces_per_site) and the summarised one.
  pmpi::CallLog log((run_dir / "rank-00003.jsonl").string(), info, 2, error);
  ASSERT_TRUE(error.empty()) << error;
  log.add(traced_call());
  log.add(summarised_call());  // the cap: summarised (and the table's second entry)
  pmpi::CallRecord other = summarised_call();
  other.coll = Collective::scatter;
  other.algorithm = "scatter.flat";
  log.add(other);  // the table is full: the scatter overflow entry
  using pmpi::uncovered::Reason;
  using pmpi::uncovered::Timing;
  log.add_uncovered({{"MPI_Alltoallv", Timing::whole, Reason::not_served, 5, 1.5e-3},
                     {"MPI_Ibcast", Timing::initiation, Reason::not_served, 3, 2.5e-6},
                     {"MPI_Bcast", Timing::whole, Reason::before_serving, 7, 4.5e-5}},
                    true);
  log.close(pmpi::Ending::abort, 3, "bcast.chain failed inside its schedule (std::bad_alloc)");

  const logs::RunLog read = logs::read_run_dir(run_dir);
  ASSERT_EQ(read.ranks.size(), 1u);
  // The one problem is that ranks 0, 1, 2 and 4 of the 5 left no file.
  ASSERT_EQ(read.problems.size(), 1u);
  EXPECT_NE(read.problems[0].find("1 of 5 rank files found"), std::string::npos)
      << read.problems[0];

  // run
  const logs::RunHeader& h = read.ranks[0];
  EXPECT_EQ(h.run, "run-7");
  EXPECT_EQ(h.world_rank, 3);
  EXPECT_EQ(h.world_size, 5);
  EXPECT_EQ(h.host, "node \"a\"\\b");
  EXPECT_EQ(h.level, "trace");
  EXPECT_EQ(h.stack_depth, 4);
  EXPECT_EQ(h.max_records, 1);
  EXPECT_EQ(h.max_bytes, 1u << 20);
  EXPECT_EQ(h.traces_per_site, 7u);
  EXPECT_EQ(h.config, "conf.toml");
  EXPECT_EQ(h.model, "model.toml");
  EXPECT_EQ(h.mpi, "openmpi");
  EXPECT_FALSE(h.collsel_version.empty());

  // call
  ASSERT_EQ(read.calls.size(), 1u);
  const logs::LoggedCall& c = read.calls[0];
  const pmpi::CallRecord w = traced_call();
  EXPECT_EQ(c.run, "run-7");
  EXPECT_EQ(c.world_rank, 3);
  EXPECT_EQ(c.comm, "3.7");
  EXPECT_EQ(c.comm_rank, w.comm_rank);
  EXPECT_EQ(c.comm_size, w.comm_size);
  EXPECT_EQ(c.seq, 42);
  EXPECT_EQ(c.coll, "alltoall");
  EXPECT_EQ(c.bytes, w.bytes);
  EXPECT_EQ(c.root, w.root);
  EXPECT_EQ(c.algorithm, w.algorithm);
  EXPECT_EQ(c.segment_bytes, w.segment_bytes);
  EXPECT_EQ(c.window, 3);
  EXPECT_EQ(c.rung, "model");
  ASSERT_TRUE(c.predicted_s.has_value());
  EXPECT_DOUBLE_EQ(*c.predicted_s, w.predicted_s);
  EXPECT_TRUE(c.simulated);
  EXPECT_DOUBLE_EQ(c.actual_s, w.actual_s);
  EXPECT_DOUBLE_EQ(c.setup_s, w.setup_s);
  EXPECT_DOUBLE_EQ(c.start_s, w.start_s);
  EXPECT_EQ(c.stack, (std::vector<std::uint64_t>{0x401000, 0x7f0000001234, 0xffffffffffffff00}));

  // summary: the keyed entry and the overflow entry
  ASSERT_EQ(read.summaries.size(), 2u);
  const logs::SummaryRecord& s = read.summaries[0];
  EXPECT_EQ(s.run, "run-7");
  EXPECT_EQ(s.world_rank, 3);
  EXPECT_EQ(s.comm_size, 4);
  EXPECT_EQ(s.coll, "bcast");
  EXPECT_EQ(s.algorithm, "bcast.binomial");
  EXPECT_EQ(s.rung, "default_model");
  EXPECT_LE(s.bytes_lo, 3000u);
  EXPECT_GE(s.bytes_hi, 3000u);
  EXPECT_EQ(s.stack, (std::vector<std::uint64_t>{0x500000}));
  EXPECT_FALSE(s.overflow);
  EXPECT_EQ(s.calls, 1);
  EXPECT_EQ(s.bytes_sum, 3000u);
  EXPECT_DOUBLE_EQ(s.actual_sum_s, 4e-6);
  EXPECT_DOUBLE_EQ(s.actual_min_s, 4e-6);
  EXPECT_DOUBLE_EQ(s.actual_max_s, 4e-6);
  EXPECT_EQ(s.predicted_calls, 0);
  EXPECT_DOUBLE_EQ(s.predicted_sum_s, 0.0);
  EXPECT_FALSE(s.predicted_min_s.has_value());
  EXPECT_FALSE(s.predicted_max_s.has_value());
  const logs::SummaryRecord& o = read.summaries[1];
  EXPECT_TRUE(o.overflow);
  EXPECT_EQ(o.coll, "scatter");
  EXPECT_EQ(o.calls, 1);

  // module: the process's objects as the writer saw them
  const auto objects = pmpi::loaded_objects();
  ASSERT_EQ(h.modules.size(), objects.size());
  for (std::size_t i = 0; i < objects.size(); ++i) {
    EXPECT_EQ(h.modules[i].path, objects[i].path);
    EXPECT_EQ(h.modules[i].base, objects[i].base);
    EXPECT_EQ(h.modules[i].start, objects[i].start);
    EXPECT_EQ(h.modules[i].end, objects[i].end);
    EXPECT_EQ(h.modules[i].build_id, objects[i].build_id);
  }

  // uncovered
  ASSERT_EQ(read.uncovered.size(), 3u);
  const logs::UncoveredRecord& u = read.uncovered[0];
  EXPECT_EQ(u.run, "run-7");
  EXPECT_EQ(u.world_rank, 3);
  EXPECT_EQ(u.function, "MPI_Alltoallv");
  EXPECT_EQ(u.timing, "whole");
  EXPECT_EQ(u.calls, 5);
  EXPECT_DOUBLE_EQ(u.time_s, 1.5e-3);
  EXPECT_EQ(read.uncovered[1].function, "MPI_Ibcast");
  EXPECT_EQ(read.uncovered[1].timing, "initiation");
  EXPECT_EQ(read.uncovered[1].reason, "");
  EXPECT_EQ(read.uncovered[2].function, "MPI_Bcast");
  EXPECT_EQ(read.uncovered[2].reason, logs::schema::kReasonBeforeServing);
  EXPECT_EQ(read.uncovered[2].calls, 7);

  // end
  EXPECT_TRUE(h.uncovered_counted);
  ASSERT_TRUE(h.end_calls.has_value());
  EXPECT_EQ(*h.end_calls, 1);
  EXPECT_EQ(h.summarised_calls, 2);
  EXPECT_EQ(h.overflow_calls, 1);
  EXPECT_EQ(h.ending, "abort");
  EXPECT_EQ(h.ending_code, 3);
  EXPECT_EQ(h.unwritten_calls, 0);
  // The scatter found the table full: not traced (its traces could not be counted), which the end
  // record counts with the sampled calls, not as a cap.
  EXPECT_EQ(h.sampled_calls, 1);
  EXPECT_EQ(h.ending_cause, "bcast.chain failed inside its schedule (std::bad_alloc)");
  EXPECT_EQ(logs::describe_ending(h),
            "MPI_Abort (code 3) by collsel: bcast.chain failed inside its schedule "
            "(std::bad_alloc)");
  EXPECT_FALSE(h.cut_padding);
}

// The defaults the writer leaves out read back as what they stand for: no prediction, no call
// site, root 0, not segmented, not simulated, no set-up.
TEST(LogRoundTrip, DefaultsLeftOutReadBack) {
  testing::TempDir dir("log-roundtrip-defaults");
  const auto run_dir = dir.path() / "run-8";
  std::filesystem::create_directories(run_dir);
  const pmpi::RunInfo info{"run-8", 0, 1, "n0", "c", "m", LogLevel::trace, 0, 10, "mpich", 0, 0};
  std::string error;
  pmpi::CallLog log((run_dir / "rank-00000.jsonl").string(), info, 16, error);
  ASSERT_TRUE(error.empty()) << error;
  pmpi::CallRecord r = traced_call();
  r.root = 0;
  r.window = 0;
  r.predicted_s = std::nan("");
  r.simulated = false;
  r.setup_s = 0.0;
  r.site = {};
  log.add(r);
  log.close();
  const logs::RunLog read = logs::read_run_dir(run_dir);
  EXPECT_TRUE(read.problems.empty()) << read.problems.front();
  ASSERT_EQ(read.calls.size(), 1u);
  const logs::LoggedCall& c = read.calls[0];
  EXPECT_EQ(c.run, "run-8");
  EXPECT_EQ(c.world_rank, 0);
  EXPECT_EQ(c.root, 0);
  EXPECT_EQ(c.segment_bytes, 0u);
  EXPECT_EQ(c.window, 0);
  EXPECT_FALSE(c.predicted_s.has_value());
  EXPECT_FALSE(c.simulated);
  EXPECT_EQ(c.setup_s, 0.0);
  EXPECT_TRUE(c.stack.empty());
  EXPECT_EQ(read.ranks.at(0).stack_depth, 0);
  EXPECT_EQ(read.ranks.at(0).traces_per_site, 0u);
}

// [log] traces_per_site through writer and reader: the first calls of each call site and shape
// are call records whose sites resolve to what was captured, the rest are in the summaries, and
// together they count every call made.
TEST(LogRoundTrip, SampledTracesAndSummariesCountEveryCall) {
  testing::TempDir dir("log-roundtrip-sampled");
  const auto run_dir = dir.path() / "run-9";
  std::filesystem::create_directories(run_dir);
  const pmpi::RunInfo info{"run-9", 0, 1, "n0", "c", "m", LogLevel::trace, 4, 100000, "mpich",
                           0, 3};
  std::string error;
  pmpi::CallLog log((run_dir / "rank-00000.jsonl").string(), info, 64, error);
  ASSERT_TRUE(error.empty()) << error;
  constexpr int kCalls = 50;
  for (int i = 0; i < kCalls; ++i) {
    pmpi::CallRecord r = traced_call();
    r.seq = static_cast<std::uint64_t>(i);
    r.site.pcs[0] = 0x401000 + 0x10 * static_cast<std::uint64_t>(i % 2);  // two sites
    log.add(r);
  }
  log.close();
  const logs::RunLog read = logs::read_run_dir(run_dir);
  EXPECT_TRUE(read.problems.empty()) << read.problems.front();
  ASSERT_EQ(read.calls.size(), 6u);  // 3 per site
  for (const logs::LoggedCall& c : read.calls) {
    const std::uint64_t site = 0x401000 + 0x10 * static_cast<std::uint64_t>(c.seq % 2);
    EXPECT_EQ(c.stack, (std::vector<std::uint64_t>{site, 0x7f0000001234, 0xffffffffffffff00}));
  }
  std::int64_t summarised = 0;
  for (const logs::SummaryRecord& s : read.summaries) {
    summarised += s.calls;
    EXPECT_EQ(s.stack.size(), 3u);
  }
  EXPECT_EQ(read.summaries.size(), 2u);
  EXPECT_EQ(static_cast<std::int64_t>(read.calls.size()) + summarised, kCalls);
  EXPECT_EQ(read.ranks.at(0).sampled_calls, kCalls - 6);
}

// A process SIGKILLed while logging runs no code: its file holds every record added before the
// kill (they are in the page cache), then the NUL bytes of the mapped chunk's rest. The reader
// reads the records, says the log was cut short, and the rank's ending is empty.
TEST(LogRoundTrip, SigkilledWriterLosesNoRecord) {
  testing::TempDir dir("log-sigkill");
  const auto run_dir = dir.path() / "run-9";
  std::filesystem::create_directories(run_dir);
  constexpr int kCalls = 5000;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const pmpi::RunInfo info{"run-9", 0, 1, "n0", "c", "m", LogLevel::trace, 0, 100000, "mpich", 0};
    std::string error;
    pmpi::CallLog log((run_dir / "rank-00000.jsonl").string(), info, 16, error);
    for (int i = 0; i < kCalls; ++i) {
      pmpi::CallRecord r = traced_call();
      r.seq = static_cast<std::uint64_t>(i);
      r.site = {};
      log.add(r);
    }
    raise(SIGKILL);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  const logs::RunLog read = logs::read_run_dir(run_dir);
  ASSERT_EQ(read.ranks.size(), 1u);
  ASSERT_EQ(read.calls.size(), static_cast<std::size_t>(kCalls));
  EXPECT_EQ(read.calls.back().seq, kCalls - 1);
  const logs::RunHeader& h = read.ranks[0];
  EXPECT_TRUE(h.ending.empty());
  EXPECT_TRUE(h.cut_padding);
  EXPECT_NE(logs::describe_ending(h).find("cut short"), std::string::npos);
  ASSERT_EQ(read.problems.size(), 1u) << read.problems[0];
  EXPECT_NE(read.problems[0].find("no 'end' record"), std::string::npos) << read.problems[0];
}

}  // namespace
}  // namespace collsel

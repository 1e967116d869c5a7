// Reads one run's selection logs (docs/LOGS.md, format versions 1 and 2) into plain records: the one
// reader that `collsel report` and the end-to-end tests share (STYLE.md 8.8 #30). Reading never
// stops at a bad line: each one becomes a "file:line: what" entry in RunLog::problems and the rest
// of the file is still read, so a log cut short by a crash still yields its good records.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/log_schema.hpp"

namespace collsel::logs {

// The records' fields, names and types are common/log_schema.hpp; these are the reader's types.
// Whatever the version of a file, its records read alike: a version 2 record gets the run id and
// world rank of its file's run record, and its call site the addresses of the `stack` record its
// id names.

// A `module` record: one object (the executable or a shared library) loaded in a rank's process,
// with the absolute address range of its executable segments; call-site program counters are
// absolute addresses in that rank's address space, resolved against these at report time.
struct Module {
  std::string path;           // absolute path of the object file
  std::uint64_t base = 0;     // load bias: file virtual address = pc - base
  std::uint64_t start = 0;    // [start, end): executable segments, absolute
  std::uint64_t end = 0;
  std::string build_id;       // hex GNU build id, empty when the object has none
};

// The `run` record that opens each rank's file, plus what the reader saw in that file.
struct RunHeader {
  std::string file;  // path of the rank's file, for messages
  std::string run;
  int world_rank = -1;
  int world_size = 0;
  std::string host;
  std::string collsel_version;
  std::string config;
  std::string model;
  std::string mpi;  // "mpich", "openmpi", "smpi"; empty: an older log, which does not say
  std::optional<std::int64_t> end_calls;  // from the `end` record; empty: the file has none
  std::int64_t call_records = 0;          // `call` records read from this file
  std::string level = "trace";            // from the run record: "trace" or "summary"
  int stack_depth = 0;                    // from the run record; 0: no call sites captured
  std::int64_t max_records = 0;           // trace cap from the run record; 0: unknown
  std::uint64_t traces_per_site = 0;      // calls traced per site and shape; 0: no limit, or unknown
  std::uint64_t max_bytes = 0;            // the file's cap from the run record; 0: none or unknown
  std::int64_t summarised_calls = 0;      // from the `end` record: calls in summary records
  std::int64_t overflow_calls = 0;        // from the `end` record: calls in overflow entries
  bool uncovered_counted = false;         // from the `end` record: `uncovered` records are whole
  std::vector<Module> modules;            // this rank's `module` records
  // How the process ended, from the `end` record (common/log_schema.hpp kEnding*): "finalize",
  // "exit", "abort" (code: its errorcode), "signal" (code: the signal number); empty: no `end`
  // record, the log was cut short (SIGKILL).
  std::string ending;
  int ending_code = 0;
  // The abort collsel itself called: what failed (the `end` record's "cause"); else empty.
  std::string ending_cause;
  std::int64_t unwritten_calls = 0;  // from the `end` record: calls counted in no record
  std::int64_t sampled_calls = 0;    // from the `end` record: summarised past traces_per_site
  bool cut_padding = false;          // NUL bytes after the records: the log was not closed
  // The rank died before writing its summary records (SIGKILL, a fatal signal): its summaries
  // were read back from its summary table file (read_summary_table), and summarised_calls,
  // overflow_calls and sampled_calls are that table's.
  bool summaries_recovered = false;
};

// "MPI_Finalize", "exit() without MPI_Finalize", "MPI_Abort (code 3)", "MPI_Abort (code 34) by
// collsel: <cause>", "signal 11 (SIGSEGV)",
// "cut short (no end record: killed by SIGKILL?)": how a rank ended, for reports.
std::string describe_ending(const RunHeader& rank);

// One `call` record: one rank's view of one collective call.
struct LoggedCall {
  std::string run;
  int world_rank = -1;
  std::string comm;
  int comm_rank = -1;
  int comm_size = 0;
  std::int64_t seq = 0;
  std::string coll;
  std::uint64_t bytes = 0;
  int root = 0;
  std::string algorithm;
  std::uint64_t segment_bytes = 0;
  int window = 0;  // alltoall.windowed's exchanges in flight; absent in older logs
  std::string rung;
  std::optional<double> predicted_s;  // null in the log: no model applied
  bool simulated = false;  // predicted by schedule simulation; absent in older logs
  double actual_s = 0.0;
  double setup_s = 0.0;  // the call's one-off set-up cost; 0 in older logs
  double start_s = 0.0;
  std::vector<std::uint64_t> stack;  // call-site return addresses, innermost first; may be empty
};

// A `summary` record: one rank's aggregate of the calls of one key (call site x collective x
// algorithm x comm size x size bucket). Written at finalize in summary level, and in trace level
// for the calls after the trace cap.
struct SummaryRecord {
  std::string run;
  int world_rank = -1;
  int comm_size = 0;
  std::string coll;
  std::string algorithm;        // registered name, "native", or "*" in an overflow entry
  std::string rung;             // rung of the first call of the key
  std::uint64_t bytes_lo = 0;   // size bucket, inclusive bounds
  std::uint64_t bytes_hi = 0;
  std::vector<std::uint64_t> stack;
  bool overflow = false;        // the table was full: calls of any key of this collective
  std::int64_t calls = 0;
  std::uint64_t bytes_sum = 0;
  double actual_sum_s = 0.0;
  double actual_min_s = 0.0;
  double actual_max_s = 0.0;
  std::int64_t predicted_calls = 0;  // calls that had a prediction
  double predicted_sum_s = 0.0;
  std::optional<double> predicted_min_s;  // null when predicted_calls == 0
  std::optional<double> predicted_max_s;
  bool recovered = false;  // read back from the rank's summary table file, not a `summary` record
};

// An `uncovered` record: one rank's calls of one collective function collsel does not serve,
// counted by the shim's pass-through wrapper.
struct UncoveredRecord {
  std::string run;
  int world_rank = -1;
  std::string function;  // "MPI_Allreduce", ...
  std::string timing;    // "whole" or "initiation" (non-blocking and persistent calls)
  std::int64_t calls = 0;
  double time_s = 0.0;   // this rank's time in those calls
  // Empty: a collective collsel does not serve; "before_serving" (schema::kReasonBeforeServing):
  // a served one called before its communicator's [runtime] serve_from_call-th call.
  std::string reason;
};

// The summary table a rank's shim keeps in a file next to its log (rank-NNNNN.summary; layout:
// common/summary_table_format.hpp). A clean ending writes it as `summary` records and deletes the
// file; a rank killed by SIGKILL or a fatal signal leaves it, and the reader recovers the
// summaries from it (read_run_dir does, for a rank whose log has no `end` record or ended by a
// signal).
struct SummaryTable {
  std::vector<SummaryRecord> summaries;  // the entries with calls, marked recovered; run and
                                         // world_rank left for the caller
  std::int64_t calls = 0;           // in the entries (the sum over `summaries`)
  std::int64_t overflow_calls = 0;  // of which in overflow entries
  std::int64_t sampled_calls = 0;   // summarised for being past [log] traces_per_site
  // The counts of the calls run without a record (format version 2 on), as `uncovered` records
  // (those with calls; run and world_rank left for the caller), and whether the shim counted the
  // collectives it does not serve (else only the calls before serve_from_call are counted).
  std::vector<UncoveredRecord> uncovered;
  bool uncovered_counted = false;
};

// rank-NNNNN.summary for rank-NNNNN.jsonl.
std::filesystem::path summary_table_path(const std::filesystem::path& rank_file);

// Reads a summary table file. A file that is not a whole, sound table (truncated, another
// layout, an entry out of range) gives nullopt and one sentence in `problem`; never throws on
// the file's content.
std::optional<SummaryTable> read_summary_table(const std::filesystem::path& path,
                                               std::string& problem);

struct RunLog {
  std::string run_id;
  std::string dir;                    // the run directory that was read
  std::vector<RunHeader> ranks;       // one per rank file that had a `run` record, by world rank
  std::vector<LoggedCall> calls;      // in file order, rank files in name order
  std::vector<SummaryRecord> summaries;  // in file order, rank files in name order
  std::vector<UncoveredRecord> uncovered;  // in file order, rank files in name order
  std::vector<std::string> problems;  // "FILE:LINE: what was wrong" (LINE left out for whole files)
};

// The rank-*.jsonl files directly in `dir`, sorted by name (empty if there are none).
std::vector<std::filesystem::path> rank_files(const std::filesystem::path& dir);

// The run directory to read. `run_id` empty: `dir_or_logdir` itself if it holds rank files, else
// its newest subdirectory that does (RUN_IDs start with the UTC time, so the largest name is the
// newest). `run_id` given: `dir_or_logdir/run_id`, or `dir_or_logdir` if that is the run itself.
// Empty when nothing matches.
std::optional<std::filesystem::path> find_run_dir(const std::filesystem::path& dir_or_logdir,
                                                  std::string_view run_id = {});

// Reads every rank file of one run directory.
RunLog read_run_dir(const std::filesystem::path& run_dir);

// find_run_dir + read_run_dir. When no run is found the result has no ranks and one problem
// saying where it looked.
RunLog read_run(const std::filesystem::path& dir_or_logdir, std::string_view run_id = {});

}  // namespace collsel::logs

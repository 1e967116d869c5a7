// Reads one run's selection logs (docs/LOGS.md, format version 1) into plain records: the one
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

namespace collsel::logs {

inline constexpr int kLogFormatVersion = 1;

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
  std::optional<std::int64_t> end_calls;  // from the `end` record; empty: the file has none
  std::int64_t call_records = 0;          // `call` records read from this file
};

// One `call` record: one rank's view of one collective call.
struct CallRecord {
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
  double start_s = 0.0;
};

struct RunLog {
  std::string run_id;
  std::string dir;                    // the run directory that was read
  std::vector<RunHeader> ranks;       // one per rank file that had a `run` record, by world rank
  std::vector<CallRecord> calls;      // in file order, rank files in name order
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

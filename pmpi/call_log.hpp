// The per-rank JSON Lines log of calls (format: docs/LOGS.md). In level "trace" the first
// traces_per_site calls of each call site and shape (summary key), up to max_records calls in all,
// are formatted as they are made and appended to the rank's file, which is written through a
// shared memory mapping (log_file.hpp): each record is in the kernel's page cache once add()
// returns, so even a SIGKILL loses no call record. Later calls, and every call in level
// "summary", go into the fixed-size summary table (call_summary.hpp), written as records at a
// clean ending; the table lives in a shared mapping of rank-NNNNN.summary, next to the log, which
// a clean ending deletes and any other ending leaves for the reader to recover. A call
// site is written once, as a `stack` record (ids: stack_ids.hpp), before the first record that
// refers to it, in the same append, so that a log cut anywhere never refers to an unwritten site.
// Every ending writes the `end` record that says how the process ended: MPI_Finalize, exit()
// without it, MPI_Abort (close()), or a fatal signal (end_from_signal(), async-signal-safe).
// [log] max_bytes bounds the file: traces stop at three quarters of it, summaries at all of it.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "pmpi/call_site.hpp"
#include "pmpi/log_file.hpp"
#include "pmpi/call_summary.hpp"
#include "pmpi/stack_ids.hpp"
#include "pmpi/uncovered_counts.hpp"
#include "selector/collective.hpp"
#include "selector/config.hpp"
#include "selector/decide.hpp"

namespace collsel::pmpi {

struct CallRecord {
  std::array<char, 32> comm{};
  int comm_rank = 0;
  int comm_size = 0;
  std::uint64_t seq = 0;
  Collective coll = Collective::bcast;
  std::uint64_t bytes = 0;
  int root = 0;
  std::string_view algorithm;  // points into the registry (static storage) or kNativeName
  std::uint64_t segment_bytes = 0;
  int window = 0;  // alltoall.windowed's exchanges in flight; 0 otherwise
  Rung rung = Rung::native;
  double predicted_s = 0.0;  // NaN: null in the log
  bool simulated = false;    // predicted_s came from the schedule simulation
  double actual_s = 0.0;
  double setup_s = 0.0;
  double start_s = 0.0;
  CallSite site;  // empty when [log] stack_depth is 0
};

struct RunInfo {
  std::string run_id;
  int world_rank = 0;
  int world_size = 1;
  std::string host;
  std::string config_source;
  std::string model_source;
  LogLevel level = LogLevel::trace;  // trace or summary (off has no log)
  int stack_depth = 0;               // > 0: `module` records are written at close
  std::uint64_t max_records = 0;     // trace cap: call records per rank
  std::string mpi;                   // flavour::name() of the shim's build
  std::uint64_t max_bytes = 0;       // the file's cap in bytes; 0: none
  std::uint64_t traces_per_site = 0;  // calls traced per summary key; 0: no limit
};

// How the rank's process ended, as the `end` record says (common/log_schema.hpp).
enum class Ending { finalize, exit, abort, signal };

class CallLog {
 public:
  // Opens (creates) the file, creates the summary table (`summary_entries`) in the file `path`
  // with extension .summary, and writes the
  // `run` record and, with call sites, the `module` records; `error` receives a sentence when
  // that fails and the log stays off.
  // The call-site ids (stack_ids.hpp), with call sites, are allocated alike, as many as
  // `summary_entries`.
  CallLog(const std::string& path, const RunInfo& info, std::uint32_t summary_entries,
          std::string& error);
  ~CallLog();
  CallLog(const CallLog&) = delete;
  CallLog& operator=(const CallLog&) = delete;

  bool ok() const { return state_.load() == kOpen; }
  void add(const CallRecord& record);
  // The counts of the calls collsel ran natively without a record (uncovered_counts.hpp), written
  // by close() as `uncovered` records; with `not_served_counted` (this build's wrappers count
  // the collectives collsel does not serve) the `end` record says those were counted.
  void add_uncovered(std::vector<uncovered::Count> counts, bool not_served_counted);
  // From start-up on, the counters of uncovered_counts.hpp live in the summary table's file, so
  // that a killed rank's counts survive it (the reader recovers them with the summaries).
  void keep_uncovered_counts(bool not_served_counted) noexcept {
    if (summary_) summary_->keep_uncovered_counts(not_served_counted);
  }
  // Writes the summary, new module and uncovered records and the `end` line saying how the
  // process ended (`code`: MPI_Abort's errorcode; `cause`: what failed, when collsel itself
  // aborts); the log accepts nothing afterwards.
  void close(Ending how = Ending::finalize, int code = 0, std::string_view cause = {});
  // From a signal handler: only the `end` record (ending "signal", code `signal`), written with
  // async-signal-safe calls after the last complete record; the summary table's calls are counted
  // as unwritten, and its file stays for the reader. Does nothing when the log is closing or
  // closed.
  void end_from_signal(int signal) noexcept;

 private:
  void add_locked(const CallRecord& record);
  // Formats the call's record (and its site's `stack` record when new) into the file.
  void trace_locked(const CallRecord& record);
  // Counts the call in `entry` (nullptr: its collective's overflow entry, noted once).
  void summarise_locked(const CallRecord& record, SummaryEntry* entry);
  void write_summary_locked();
  // {"v":..,"type":KIND} and the schema's `fields` of `view`, appended to `out` / written to the
  // file.
  template <class Buffer, class View, class Fields>
  void append_record(Buffer& out, std::string_view kind, const View& view, Fields fields) const;
  template <class View, class Fields>
  bool write_record(std::string_view kind, const View& view, Fields fields);
  // The id of `site` in the log (0: none), its `stack` record appended to text_ first when new.
  std::uint64_t site_id_locked(const CallSite& site);
  // Module records for the objects loaded since the last look (all of them the first time);
  // cheap when the loader's count has not changed.
  void write_new_modules_locked();
  // A call site not seen lately may lie in an object loaded since: look then (a 256-slot cache of
  // site hashes keeps the look off the path of a loop's repeated calls).
  void check_site_locked(const CallSite& site);
  void write_uncovered_locked();
  void stop_locked(const std::string& why);

  static constexpr int kOpen = 0, kClosing = 1, kClosed = 2;
  std::mutex mutex_;  // MPI_THREAD_MULTIPLE programs may call collectives from several threads
  // kOpen until an ending: close() and end_from_signal() take the log from kOpen exactly once.
  std::atomic<int> state_{kClosed};
  int owner_ = 0;  // the pid that opened the log: only it may end it
  std::unique_ptr<LogFile> file_;
  RunInfo info_;
  fmt::memory_buffer text_;  // the records being formatted
  std::uint64_t trace_bytes_ = 0;  // traces stop when the file reaches this size
  std::atomic<std::uint64_t> written_{0};  // call records in the file (read by the signal path)
  std::uint64_t traced_ = 0;  // call records accepted, up to max_records
  bool bytes_noted_ = false;
  std::uint64_t summarised_written_ = 0;  // calls in the summary records written
  std::uint64_t unwritten_ = 0;  // summarised calls left out by max_bytes
  unsigned long long modules_added_ = 0;  // the loader's count when modules were last written
  std::vector<std::pair<std::string, std::uint64_t>> modules_written_;  // path, base
  std::array<std::size_t, 256> recent_sites_{};
  std::unique_ptr<CallSummary> summary_;
  std::unique_ptr<StackIds> stacks_;  // null without call sites
  bool overflow_noted_ = false;
  std::vector<uncovered::Count> uncovered_;
  bool uncovered_counted_ = false;
};

}  // namespace collsel::pmpi

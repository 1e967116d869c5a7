// The per-rank JSON Lines log of calls (format: docs/LOGS.md). In level "trace" the first
// max_records calls are kept in a buffer of fixed capacity and appended to the rank's file when it
// fills and at finalize (4096 x 208 bytes = 832 KiB by default); later calls, and every call in
// level "summary", go into the fixed-size summary table (call_summary.hpp), written at finalize.
// Memory therefore stays bounded whatever the number of calls, and formatting happens at flush
// time, off the call path.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "pmpi/call_site.hpp"
#include "pmpi/call_summary.hpp"
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
};

class CallLog {
 public:
  // Opens (creates) the file and allocates the buffer (`buffer_records`, trace only) and the
  // summary table (`summary_entries`); `error` receives a sentence when that fails and the log
  // stays off.
  CallLog(const std::string& path, const RunInfo& info, std::uint32_t buffer_records,
          std::uint32_t summary_entries, std::string& error);
  ~CallLog();
  CallLog(const CallLog&) = delete;
  CallLog& operator=(const CallLog&) = delete;

  bool ok() const { return file_ != nullptr; }
  void add(const CallRecord& record);
  // The counts of the collectives collsel does not serve, written by close() as `uncovered`
  // records; the `end` record then says they were counted.
  void add_uncovered(std::vector<uncovered::Count> counts);
  // Writes buffered records, the summary and module records and the `end` line; the log accepts
  // nothing afterwards.
  void close();

 private:
  void add_locked(const CallRecord& record);
  void summarise_locked(const CallRecord& record);
  void flush_locked();
  void write_summary_locked();
  // {"v":..,"type":KIND,"run":..,"world_rank":..} and the schema's `fields` of `view`, appended
  // to text_ / written to the file.
  template <class View, class Fields>
  void append_record(std::string_view kind, const View& view, Fields fields);
  template <class View, class Fields>
  void write_record(std::string_view kind, const View& view, Fields fields);
  void write_modules_locked();
  void write_uncovered_locked();

  std::mutex mutex_;  // MPI_THREAD_MULTIPLE programs may call collectives from several threads
  std::FILE* file_ = nullptr;
  RunInfo info_;
  std::string run_json_;  // the run id as a JSON string, escaped once
  std::vector<CallRecord> buffer_;
  fmt::memory_buffer text_;  // formatted records awaiting fwrite
  std::uint64_t written_ = 0;
  std::uint64_t traced_ = 0;  // call records accepted (written or buffered), up to max_records
  std::unique_ptr<CallSummary> summary_;
  bool overflow_noted_ = false;
  std::vector<uncovered::Count> uncovered_;
  bool uncovered_counted_ = false;
};

}  // namespace collsel::pmpi

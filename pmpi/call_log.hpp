// The per-rank JSON Lines log of calls (format: docs/LOGS.md). Records are kept in a buffer of
// fixed capacity and appended to the rank's file when it fills and at finalize, so memory stays
// at capacity x sizeof(CallRecord) (4096 x 136 bytes = 544 KiB by default) whatever the number
// of calls. Formatting happens at flush time, off the call path.
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

#include "selector/collective.hpp"
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
  double start_s = 0.0;
};

struct RunInfo {
  std::string run_id;
  int world_rank = 0;
  int world_size = 1;
  std::string host;
  std::string config_source;
  std::string model_source;
};

class CallLog {
 public:
  // Opens (creates) the file; `error` receives a sentence when that fails and the log stays off.
  CallLog(const std::string& path, const RunInfo& info, std::uint32_t capacity, std::string& error);
  ~CallLog();
  CallLog(const CallLog&) = delete;
  CallLog& operator=(const CallLog&) = delete;

  bool ok() const { return file_ != nullptr; }
  void add(const CallRecord& record);
  // Writes buffered records and the `end` line; the log accepts nothing afterwards.
  void close();

 private:
  void flush_locked();

  std::mutex mutex_;  // MPI_THREAD_MULTIPLE programs may call collectives from several threads
  std::FILE* file_ = nullptr;
  RunInfo info_;
  std::string run_json_;  // the run id as a JSON string, escaped once
  std::vector<CallRecord> buffer_;
  fmt::memory_buffer text_;  // formatted records awaiting fwrite
  std::uint64_t written_ = 0;
};

}  // namespace collsel::pmpi

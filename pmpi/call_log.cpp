#include "pmpi/call_log.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iterator>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "collsel_version.hpp"
#include "pmpi/loaded_objects.hpp"

namespace collsel::pmpi {
namespace {

// JSON string escaping for the few free-text fields (host names, paths).
std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

// Appends a number, or null for NaN/inf (no prediction), without a temporary string.
void append_number(fmt::memory_buffer& out, double v) {
  if (std::isfinite(v)) {
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), v);
  } else {
    out.append(std::string_view("null"));
  }
}

// `"stack":[pc,...]`, decimal: JSON has no hex literals, and readers parse integers natively.
void append_stack(fmt::memory_buffer& out, const CallSite& site) {
  out.append(std::string_view("\"stack\":["));
  for (int i = 0; i < site.depth; ++i) {
    if (i > 0) out.push_back(',');
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"),
                   site.pcs[static_cast<std::size_t>(i)]);
  }
  out.push_back(']');
}

}  // namespace

CallLog::CallLog(const std::string& path, const RunInfo& info, std::uint32_t buffer_records,
                 std::uint32_t summary_entries, std::string& error)
    : info_(info), run_json_(json_string(info.run_id)) {
  // Allocate first: a rank that cannot hold its buffers is not logged, rather than failing later
  // in the middle of the user's run.
  try {
    if (info_.level == LogLevel::trace) {
      buffer_.reserve(static_cast<std::size_t>(
          std::min<std::uint64_t>(buffer_records, std::max<std::uint64_t>(info_.max_records, 1))));
    }
    summary_ = std::make_unique<CallSummary>(summary_entries);
  } catch (const std::exception& e) {
    error = fmt::format("cannot allocate the log's buffers ({})", e.what());
    return;
  }
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr) {
    error = fmt::format("cannot create {} ({})", path, std::strerror(errno));
    return;
  }
  fmt::print(file_,
             "{{\"v\":1,\"type\":\"run\",\"run\":{},\"world_rank\":{},\"world_size\":{},"
             "\"host\":{},\"level\":\"{}\",\"stack_depth\":{},\"max_records\":{},"
             "\"collsel_version\":{},\"config\":{},\"model\":{}}}\n",
             run_json_, info_.world_rank, info_.world_size, json_string(info_.host),
             log_level_name(info_.level), info_.stack_depth, info_.max_records,
             json_string(kVersion), json_string(info_.config_source),
             json_string(info_.model_source));
}

CallLog::~CallLog() { close(); }

void CallLog::add(const CallRecord& record) {
  std::lock_guard lock(mutex_);
  if (file_ == nullptr) return;
  // The collective has already run: an exception escaping here would make the entry point run
  // the native routine a second time. A log that cannot take a record stops instead, once.
  try {
    add_locked(record);
  } catch (const std::exception& e) {
    std::fclose(file_);
    file_ = nullptr;
    std::fprintf(stderr, "collsel: rank %d: logging failed (%s); later calls are not logged\n",
                 info_.world_rank, e.what());
  }
}

void CallLog::add_locked(const CallRecord& record) {
  if (info_.level == LogLevel::trace && traced_ < info_.max_records) {
    if (buffer_.size() == buffer_.capacity()) flush_locked();
    buffer_.push_back(record);
    ++traced_;
    return;
  }
  if (info_.level == LogLevel::trace && traced_ == info_.max_records) {
    ++traced_;  // past the cap: noted once
    if (info_.world_rank == 0) {
      fmt::print(stderr,
                 "collsel: rank 0 reached [log] max_records = {} call records; later calls are "
                 "summarised per call site in the log's summary records; raise max_records or "
                 "use level = \"summary\"\n",
                 info_.max_records);
    }
  }
  summarise_locked(record);
}

void CallLog::summarise_locked(const CallRecord& r) {
  const SummaryKey key{r.site, r.algorithm, r.coll, r.comm_size, size_bucket(r.bytes)};
  if (summary_->add(key, r.rung, r.bytes, r.actual_s, r.predicted_s) || overflow_noted_) return;
  overflow_noted_ = true;
  if (info_.world_rank == 0) {
    fmt::print(stderr,
               "collsel: rank 0's summary table is full ([log] summary_entries = {}); calls with "
               "new keys are counted per collective in overflow entries; raise summary_entries\n",
               summary_->capacity());
  }
}

void CallLog::flush_locked() {
  // The format strings are compiled (FMT_COMPILE) and the run id escaped once: formatting runs
  // once per call on average, so it is part of the per-call cost docs/BENCHMARKS.md reports.
  // One text buffer, reused and written in chunks: allocating and growing a fresh one per flush
  // cost more than the formatting itself (page faults and copies, measured with callgrind).
  constexpr std::size_t kChunk = 64 * 1024;
  fmt::memory_buffer& out = text_;
  out.clear();
  for (const CallRecord& r : buffer_) {
    fmt::format_to(std::back_inserter(out),
                   FMT_COMPILE("{{\"v\":1,\"type\":\"call\",\"run\":{},\"world_rank\":{},"
                               "\"comm\":\"{}\",\"comm_rank\":{},\"comm_size\":{},\"seq\":{},"
                               "\"coll\":\"{}\",\"bytes\":{},\"root\":{},\"algorithm\":\"{}\","
                               "\"segment_bytes\":{},\"window\":{},\"rung\":\"{}\",\"predicted_s\":"),
                   run_json_, info_.world_rank, std::string_view(r.comm.data()), r.comm_rank,
                   r.comm_size, r.seq, collective_name(r.coll), r.bytes, r.root, r.algorithm,
                   r.segment_bytes, r.window, rung_name(r.rung));
    append_number(out, r.predicted_s);
    out.append(r.simulated ? std::string_view(",\"simulated\":true")
                           : std::string_view(",\"simulated\":false"));
    out.append(std::string_view(",\"actual_s\":"));
    append_number(out, r.actual_s);
    out.append(std::string_view(",\"start_s\":"));
    append_number(out, r.start_s);
    out.push_back(',');
    append_stack(out, r.site);
    out.append(std::string_view("}\n"));
    if (out.size() >= kChunk) {
      std::fwrite(out.data(), 1, out.size(), file_);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), file_);
  std::fflush(file_);
  written_ += buffer_.size();
  buffer_.clear();
}

void CallLog::write_summary_locked() {
  fmt::memory_buffer& out = text_;
  const auto write = [&](const SummaryEntry& e) {
    out.clear();
    fmt::format_to(std::back_inserter(out),
                   "{{\"v\":1,\"type\":\"summary\",\"run\":{},\"world_rank\":{},"
                   "\"comm_size\":{},\"coll\":\"{}\",\"algorithm\":\"{}\",\"rung\":\"{}\","
                   "\"bytes_lo\":{},\"bytes_hi\":{},",
                   run_json_, info_.world_rank, e.key.comm_size, collective_name(e.key.coll),
                   e.key.algorithm, rung_name(e.rung), bucket_low(e.bucket_lo),
                   bucket_high(e.bucket_hi));
    append_stack(out, e.key.site);
    fmt::format_to(std::back_inserter(out),
                   ",\"overflow\":{},\"calls\":{},\"bytes_sum\":{},\"actual_sum_s\":", e.overflow,
                   e.calls, e.bytes_sum);
    append_number(out, e.actual_sum_s);
    out.append(std::string_view(",\"actual_min_s\":"));
    append_number(out, e.actual_min_s);
    out.append(std::string_view(",\"actual_max_s\":"));
    append_number(out, e.actual_max_s);
    fmt::format_to(std::back_inserter(out), ",\"predicted_calls\":{},\"predicted_sum_s\":",
                   e.predicted_calls);
    append_number(out, e.predicted_sum_s);
    const double none = std::nan("");
    out.append(std::string_view(",\"predicted_min_s\":"));
    append_number(out, e.predicted_calls > 0 ? e.predicted_min_s : none);
    out.append(std::string_view(",\"predicted_max_s\":"));
    append_number(out, e.predicted_calls > 0 ? e.predicted_max_s : none);
    out.append(std::string_view("}\n"));
    std::fwrite(out.data(), 1, out.size(), file_);
  };
  for (const SummaryEntry& e : summary_->entries()) write(e);
  for (const SummaryEntry& e : summary_->overflow_entries()) {
    if (e.calls > 0) write(e);
  }
}

void CallLog::write_modules_locked() {
  // What a report needs to symbolise this rank's call sites (ASLR: each rank has its own layout).
  // Read now rather than at start-up so objects dlopen()ed during the run are included.
  for (const LoadedObject& o : loaded_objects()) {
    fmt::print(file_,
               "{{\"v\":1,\"type\":\"module\",\"run\":{},\"world_rank\":{},\"path\":{},"
               "\"base\":{},\"start\":{},\"end\":{},\"build_id\":{}}}\n",
               run_json_, info_.world_rank, json_string(o.path), o.base, o.start, o.end,
               json_string(o.build_id));
  }
}

void CallLog::close() {
  std::lock_guard lock(mutex_);
  if (file_ == nullptr) return;
  std::string failure;
  try {
    flush_locked();
    write_summary_locked();
    if (info_.stack_depth > 0) write_modules_locked();
    fmt::print(file_,
               "{{\"v\":1,\"type\":\"end\",\"run\":{},\"world_rank\":{},\"calls\":{},"
               "\"summarised_calls\":{},\"overflow_calls\":{}}}\n",
               run_json_, info_.world_rank, written_, summary_->calls(),
               summary_->overflow_calls());
    if (std::fflush(file_) != 0 || std::ferror(file_)) failure = std::strerror(errno);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  std::fclose(file_);
  file_ = nullptr;
  // A full disk or a lost file system must not fail the user's MPI_Finalize: the rank's log is
  // left incomplete (readers see a missing or short `end`), with one line saying so.
  if (!failure.empty()) {
    fmt::print(stderr, "collsel: rank {}: writing the log failed ({}); its log is incomplete\n",
               info_.world_rank, failure);
  }
}

}  // namespace collsel::pmpi

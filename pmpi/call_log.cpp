#include "pmpi/call_log.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <iterator>

#include <fmt/compile.h>
#include <fmt/format.h>

#include "collsel_version.hpp"

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


}  // namespace

CallLog::CallLog(const std::string& path, const RunInfo& info, std::uint32_t capacity,
                 std::string& error)
    : info_(info), run_json_(json_string(info.run_id)) {
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr) {
    error = fmt::format("cannot create {} ({})", path, std::strerror(errno));
    return;
  }
  buffer_.reserve(capacity);
  fmt::print(file_,
             "{{\"v\":1,\"type\":\"run\",\"run\":{},\"world_rank\":{},\"world_size\":{},"
             "\"host\":{},\"collsel_version\":{},\"config\":{},\"model\":{}}}\n",
             json_string(info_.run_id), info_.world_rank, info_.world_size,
             json_string(info_.host), json_string(kVersion), json_string(info_.config_source),
             json_string(info_.model_source));
}

CallLog::~CallLog() { close(); }

void CallLog::add(const CallRecord& record) {
  std::lock_guard lock(mutex_);
  if (file_ == nullptr) return;
  if (buffer_.size() == buffer_.capacity()) flush_locked();
  buffer_.push_back(record);
}

// Appends a number, or null for NaN/inf (no prediction), without a temporary string.
void append_number(fmt::memory_buffer& out, double v) {
  if (std::isfinite(v)) {
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), v);
  } else {
    out.append(std::string_view("null"));
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

void CallLog::close() {
  std::lock_guard lock(mutex_);
  if (file_ == nullptr) return;
  flush_locked();
  fmt::print(file_, "{{\"v\":1,\"type\":\"end\",\"run\":{},\"world_rank\":{},\"calls\":{}}}\n",
             json_string(info_.run_id), info_.world_rank, written_);
  std::fclose(file_);
  file_ = nullptr;
}

}  // namespace collsel::pmpi

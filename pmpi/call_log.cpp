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
#include "common/log_schema.hpp"
#include "pmpi/loaded_objects.hpp"

namespace collsel::pmpi {
namespace {

using logs::schema::Presence;

// Writes one record's fields as the schema lists them (common/log_schema.hpp), each as
// ,"name":value, by the member's type, straight into the text buffer. A record is formatted once
// per logged call, so this is part of the trace level's per-call price (docs/BENCHMARKS.md): the
// keys are literals copied with their length known at compile time, and the space is checked
// once per record and once per string, not per field.
class JsonFields {
 public:
  // Every field but a string or a call site takes at most this many bytes (key, quotes, colon
  // and a number); the space left for them is renewed after each string and call site.
  static constexpr std::size_t kFieldBytes = 64;
  static constexpr std::size_t kSlack = 32 * kFieldBytes;

  explicit JsonFields(fmt::memory_buffer& out) : out_(out), n_(out.size()) { room(kSlack); }
  JsonFields(const JsonFields&) = delete;
  JsonFields& operator=(const JsonFields&) = delete;
  ~JsonFields() { out_.resize(n_); }

  template <std::size_t N>
  void raw(const char (&text)[N]) {
    std::memcpy(at(), text, N - 1);
    n_ += N - 1;
  }
  // Text already in JSON form, of any length.
  void raw(std::string_view text) {
    room(text.size() + kSlack);
    std::memcpy(at(), text.data(), text.size());
    n_ += text.size();
  }
  template <std::size_t N>
  void operator()(const char (&key)[N], std::string_view v, Presence) {
    name(key);
    string(v);
  }
  template <std::size_t N>
  void operator()(const char (&key)[N], bool v, Presence) {
    name(key);
    if (v) {
      raw("true");
    } else {
      raw("false");
    }
  }
  template <std::size_t N, class I>
    requires std::is_integral_v<I>
  void operator()(const char (&key)[N], I v, Presence) {
    name(key);
    integer(v);
  }
  // A number, or null for NaN/inf (no prediction).
  template <std::size_t N>
  void operator()(const char (&key)[N], double v, Presence) {
    name(key);
    if (!std::isfinite(v)) {
      raw("null");
      return;
    }
    n_ = static_cast<std::size_t>(fmt::format_to(at(), FMT_COMPILE("{}"), v) - out_.data());
  }
  // [pc,...], decimal: JSON has no hex literals, and readers parse integers natively.
  template <std::size_t N>
  void operator()(const char (&key)[N], const CallSite& site, Presence) {
    name(key);
    room(22 * kMaxStackDepth + kSlack);
    raw("[");
    for (int i = 0; i < site.depth; ++i) {
      if (i > 0) raw(",");
      integer(site.pcs[static_cast<std::size_t>(i)]);
    }
    raw("]");
  }

  // A JSON string: quotes, backslashes and control characters escaped.
  void string(std::string_view s) {
    room(6 * s.size() + 2 + kSlack);
    char* p = at();
    char* const start = p;
    *p++ = '"';
    for (const char c : s) {
      if (c == '"' || c == '\\') {
        *p++ = '\\';
        *p++ = c;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        p = fmt::format_to(p, FMT_COMPILE("\\u{:04x}"), static_cast<unsigned>(c));
      } else {
        *p++ = c;
      }
    }
    *p++ = '"';
    n_ += static_cast<std::size_t>(p - start);
  }

  template <class I>
  void integer(I v) {
    const fmt::format_int text(v);
    std::memcpy(at(), text.data(), text.size());
    n_ += text.size();
  }

 private:
  template <std::size_t N>
  void name(const char (&key)[N]) {
    static_assert(N + 3 + 24 <= kFieldBytes, "a key this long needs a larger kFieldBytes");
    char* p = at();
    p[0] = ',';
    p[1] = '"';
    std::memcpy(p + 2, key, N - 1);
    p[N + 1] = '"';
    p[N + 2] = ':';
    n_ += N + 3;
  }
  char* at() { return out_.data() + n_; }
  // At least `need` bytes of capacity past n_. The buffer keeps only its size's bytes when it
  // grows, so what was written is counted in first.
  void room(std::size_t need) {
    if (out_.capacity() - n_ < need) {
      out_.resize(n_);
      out_.reserve(n_ + need + 4096);
    }
  }

  fmt::memory_buffer& out_;
  std::size_t n_;  // bytes of out_ written; out_.size() catches up in the destructor
};

// The writer's views of its records, with the schema's member names.
struct RunView {
  int world_size;
  std::string_view host, level;
  int stack_depth;
  std::uint64_t max_records;
  std::string_view collsel_version, config, model, mpi;
};

struct CallView {
  std::string_view comm;
  int comm_rank, comm_size;
  std::uint64_t seq;
  std::string_view coll;
  std::uint64_t bytes;
  int root;
  std::string_view algorithm;
  std::uint64_t segment_bytes;
  int window;
  std::string_view rung;
  double predicted_s;
  bool simulated;
  double actual_s, setup_s, start_s;
  const CallSite& stack;
};

struct SummaryView {
  int comm_size;
  std::string_view coll, algorithm, rung;
  std::uint64_t bytes_lo, bytes_hi;
  const CallSite& stack;
  bool overflow;
  std::uint64_t calls, bytes_sum;
  double actual_sum_s, actual_min_s, actual_max_s;
  std::uint64_t predicted_calls;
  double predicted_sum_s, predicted_min_s, predicted_max_s;  // NaN: null
};

struct UncoveredView {
  std::string_view function, timing;
  std::uint64_t calls;
  double time_s;
};

struct EndView {
  std::uint64_t calls, summarised_calls, overflow_calls;
  bool uncovered_counted;
};

}  // namespace

CallLog::CallLog(const std::string& path, const RunInfo& info, std::uint32_t buffer_records,
                 std::uint32_t summary_entries, std::string& error)
    : info_(info) {
  fmt::memory_buffer run;
  JsonFields(run).string(info.run_id);
  run_json_.assign(run.data(), run.size());
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
  const RunView run_view{info_.world_size, info_.host,  log_level_name(info_.level),
                         info_.stack_depth, info_.max_records, kVersion,
                         info_.config_source, info_.model_source, info_.mpi};
  write_record(logs::schema::kRun, run_view, [](const auto& r, auto&& f) {
    logs::schema::run_fields(r, f);
  });
}

template <class View, class Fields>
void CallLog::append_record(std::string_view kind, const View& view, Fields fields) {
  JsonFields json(text_);
  json.raw(R"({"v":)");
  json.integer(logs::schema::kVersion);
  json.raw(R"(,"type":)");
  json.string(kind);
  json.raw(R"(,"run":)");
  json.raw(run_json_);  // escaped once, at construction
  json("world_rank", info_.world_rank, Presence::required);
  fields(view, json);
  json.raw("}\n");
}

template <class View, class Fields>
void CallLog::write_record(std::string_view kind, const View& view, Fields fields) {
  text_.clear();
  append_record(kind, view, fields);
  std::fwrite(text_.data(), 1, text_.size(), file_);
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
    const CallView view{std::string_view(r.comm.data()), r.comm_rank, r.comm_size, r.seq,
                        collective_name(r.coll), r.bytes, r.root, r.algorithm, r.segment_bytes,
                        r.window, rung_name(r.rung), r.predicted_s, r.simulated, r.actual_s,
                        r.setup_s, r.start_s, r.site};
    append_record(logs::schema::kCall, view, [](const auto& v, auto&& f) {
      logs::schema::call_fields(v, f);
    });
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
  const double none = std::nan("");
  const auto write = [&](const SummaryEntry& e) {
    const SummaryView view{e.key.comm_size, collective_name(e.key.coll), e.key.algorithm,
                           rung_name(e.rung), bucket_low(e.bucket_lo), bucket_high(e.bucket_hi),
                           e.key.site, e.overflow, e.calls, e.bytes_sum, e.actual_sum_s,
                           e.actual_min_s, e.actual_max_s, e.predicted_calls, e.predicted_sum_s,
                           e.predicted_calls > 0 ? e.predicted_min_s : none,
                           e.predicted_calls > 0 ? e.predicted_max_s : none};
    write_record(logs::schema::kSummary, view, [](const auto& v, auto&& f) {
      logs::schema::summary_fields(v, f);
    });
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
    write_record(logs::schema::kModule, o, [](const auto& v, auto&& f) {
      logs::schema::module_fields(v, f);
    });
  }
}

void CallLog::add_uncovered(std::vector<uncovered::Count> counts) {
  std::lock_guard lock(mutex_);
  uncovered_ = std::move(counts);
  uncovered_counted_ = true;
}

void CallLog::write_uncovered_locked() {
  for (const uncovered::Count& c : uncovered_) {
    const UncoveredView view{c.name,
                             c.timing == uncovered::Timing::whole ? "whole" : "initiation",
                             c.calls, c.time_s};
    write_record(logs::schema::kUncovered, view, [](const auto& v, auto&& f) {
      logs::schema::uncovered_fields(v, f);
    });
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
    write_uncovered_locked();
    const EndView end{written_, summary_->calls(), summary_->overflow_calls(),
                      uncovered_counted_};
    write_record(logs::schema::kEnd, end, [](const auto& v, auto&& f) {
      logs::schema::end_fields(v, f);
    });
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

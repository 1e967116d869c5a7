#include "pmpi/call_log.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <iterator>
#include <limits>
#include <optional>

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
// once per record and once per string, not per field. An optional field whose value is its type's
// zero is left out (format version 2: the reader defaults it).
// Templated on the buffer: the signal path formats its `end` record into a buffer whose inline
// storage is large enough that room() never allocates.
template <class Buffer>
class JsonFields {
 public:
  // Every field but a string or a call site takes at most this many bytes (key, quotes, colon
  // and a number); the space left for them is renewed after each string and call site.
  static constexpr std::size_t kFieldBytes = 64;
  static constexpr std::size_t kSlack = 32 * kFieldBytes;

  explicit JsonFields(Buffer& out) : out_(out), n_(out.size()) { room(kSlack); }
  JsonFields(const JsonFields&) = delete;
  JsonFields& operator=(const JsonFields&) = delete;
  ~JsonFields() { out_.resize(n_); }

  template <std::size_t N>
  void raw(const char (&text)[N]) {
    std::memcpy(at(), text, N - 1);
    n_ += N - 1;
  }
  template <std::size_t N>
  void operator()(const char (&key)[N], std::string_view v, Presence p) {
    if (omitted(p, v.empty())) return;
    name(key);
    string(v);
  }
  template <std::size_t N>
  void operator()(const char (&key)[N], bool v, Presence p) {
    if (omitted(p, !v)) return;
    name(key);
    if (v) {
      raw("true");
    } else {
      raw("false");
    }
  }
  template <std::size_t N, class I>
    requires std::is_integral_v<I>
  void operator()(const char (&key)[N], I v, Presence p) {
    if (omitted(p, v == 0)) return;
    name(key);
    integer(v);
  }
  // A number, or null for NaN/inf.
  template <std::size_t N>
  void operator()(const char (&key)[N], double v, Presence p) {
    if (omitted(p, v == 0.0)) return;
    name(key);
    number(v);
  }
  // A number or null (no prediction); an optional field is left out when null.
  template <std::size_t N>
  void operator()(const char (&key)[N], std::optional<double> v, Presence p) {
    if (omitted(p, !v.has_value())) return;
    name(key);
    if (v.has_value()) {
      number(*v);
    } else {
      raw("null");
    }
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
  // A call site by the id of its `stack` record; 0: none.
  template <std::size_t N>
  void operator()(const char (&key)[N], logs::schema::SiteRef<const std::uint64_t> site,
                  Presence p) {
    (*this)(key, site.value, p);
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
  // The writer writes the current format, where only required fields are always written.
  static bool omitted(Presence p, bool zero) { return zero && p != Presence::required; }
  // fmt's `{}` is the shortest text that reads back as the same double.
  void number(double v) {
    if (!std::isfinite(v)) {
      raw("null");
      return;
    }
    n_ = static_cast<std::size_t>(fmt::format_to(at(), FMT_COMPILE("{}"), v) - out_.data());
  }
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

  Buffer& out_;
  std::size_t n_;  // bytes of out_ written; out_.size() catches up in the destructor
};

// The writer's views of its records, with the schema's member names.
struct RunView {
  std::string_view run;
  int world_rank;
  int world_size;
  std::string_view host, level;
  int stack_depth;
  std::uint64_t max_records, traces_per_site, max_bytes;
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
  std::optional<double> predicted_s;
  bool simulated;
  double actual_s, setup_s, start_s;
  std::uint64_t stack;  // the site's id; 0: none
};

struct SummaryView {
  int comm_size;
  std::string_view coll, algorithm, rung;
  std::uint64_t bytes_lo, bytes_hi;
  std::uint64_t stack;  // the site's id; 0: none
  bool overflow;
  std::uint64_t calls, bytes_sum;
  double actual_sum_s, actual_min_s, actual_max_s;
  std::uint64_t predicted_calls;
  double predicted_sum_s;
  std::optional<double> predicted_min_s, predicted_max_s;
};

struct StackView {
  std::uint64_t id;
  const CallSite& pcs;
};

struct UncoveredView {
  std::string_view function, timing;
  std::uint64_t calls;
  double time_s;
  std::string_view reason;
};

struct EndView {
  std::uint64_t calls, summarised_calls, overflow_calls;
  bool uncovered_counted;
  std::string_view ending;
  int code;
  std::uint64_t unwritten_calls, sampled_calls;
  std::string_view cause;
};

std::string_view ending_name(Ending how) {
  switch (how) {
    case Ending::finalize: return logs::schema::kEndingFinalize;
    case Ending::exit: return logs::schema::kEndingExit;
    case Ending::abort: return logs::schema::kEndingAbort;
    case Ending::signal: return logs::schema::kEndingSignal;
  }
  return logs::schema::kEndingFinalize;
}

std::optional<double> prediction(double predicted_s) {
  return std::isfinite(predicted_s) ? std::optional<double>(predicted_s) : std::nullopt;
}

// A PMPI_Wtime reading or difference, rounded to the nanosecond: the clock's resolution
// (MPI_Wtick() is 1e-9 under MPICH and Open MPI), and digits below it are noise from the
// subtraction. The shortest text of the rounded value is at most 9 decimals ("9.765e-06" rather
// than "9.764999958861154e-06"). Divided, not multiplied by 1e-9: the quotient is the double
// nearest the decimal, so it prints as that decimal.
double clock_reading(double seconds) { return std::nearbyint(seconds * 1e9) / 1e9; }

SummaryKey key_of(const CallRecord& r) {
  return {r.site, r.algorithm, r.coll, r.comm_size, size_bucket(r.bytes)};
}

// rank-NNNNN.summary next to rank-NNNNN.jsonl: the summary table's file.
std::string summary_path(const std::string& log_path) {
  std::filesystem::path p(log_path);
  p.replace_extension(".summary");
  return p.string();
}

// Room the summary, module, uncovered and end records keep below [log] max_bytes: traces stop
// at max_bytes minus this share (1 MiB of the default 4 MiB: ~2,500 summary records).
constexpr std::uint64_t tail_reserve(std::uint64_t max_bytes) { return max_bytes / 4; }

}  // namespace

CallLog::CallLog(const std::string& path, const RunInfo& info, std::uint32_t summary_entries,
                 std::string& error)
    : owner_(::getpid()), info_(info) {
  trace_bytes_ = info_.max_bytes == 0 ? std::numeric_limits<std::uint64_t>::max()
                                      : info_.max_bytes - tail_reserve(info_.max_bytes);
  // Allocate first: a rank that cannot hold its table is not logged, rather than failing later
  // in the middle of the user's run.
  // The table lives in its own file next to the log (summary_path()), so that its calls outlive
  // an ending that cannot write them (SIGKILL, a fatal signal).
  try {
    summary_ = std::make_unique<CallSummary>(summary_entries, summary_path(path), error);
    if (!error.empty()) return;
    if (info_.stack_depth > 0) stacks_ = std::make_unique<StackIds>(summary_entries);
  } catch (const std::exception& e) {
    error = fmt::format("cannot allocate the log's summary table ({})", e.what());
    if (summary_) summary_->remove_file();
    return;
  }
  auto file = std::make_unique<LogFile>(path, error);
  if (!error.empty()) {
    summary_->remove_file();
    return;
  }
  file_ = std::move(file);
  state_.store(kOpen);
  const RunView run_view{info_.run_id,        info_.world_rank,   info_.world_size,
                         info_.host,          log_level_name(info_.level),
                         info_.stack_depth,   info_.max_records,  info_.traces_per_site,
                         info_.max_bytes,     kVersion,           info_.config_source,
                         info_.model_source,  info_.mpi};
  // Only the run record says whose file this is: the reader gives its run id and world rank to
  // every other record of the file.
  write_record(logs::schema::kRun, run_view, [](const auto& r, auto&& f) {
    logs::schema::origin_fields(r, f);
    logs::schema::run_fields(r, f);
  });
  // At start, so that a log cut short still resolves its call sites.
  if (info_.stack_depth > 0) write_new_modules_locked();
  if (!file_->ok()) {
    error = fmt::format("cannot write {} ({})", path, file_->failure());
    state_.store(kClosed);
    file_.reset();
    summary_->remove_file();
  }
}

template <class Buffer, class View, class Fields>
void CallLog::append_record(Buffer& out, std::string_view kind, const View& view,
                            Fields fields) const {
  JsonFields json(out);
  json.raw(R"({"v":)");
  json.integer(logs::schema::kVersion);
  json.raw(R"(,"type":)");
  json.string(kind);
  fields(view, json);
  json.raw("}\n");
}

template <class View, class Fields>
bool CallLog::write_record(std::string_view kind, const View& view, Fields fields) {
  text_.clear();
  append_record(text_, kind, view, fields);
  return file_->append(std::string_view(text_.data(), text_.size()));
}

CallLog::~CallLog() { close(); }

void CallLog::add(const CallRecord& record) {
  std::lock_guard lock(mutex_);
  if (state_.load(std::memory_order_relaxed) != kOpen) return;
  // The collective has already run: an exception escaping here would make the entry point run
  // the native routine a second time. A log that cannot take a record stops instead, once.
  try {
    add_locked(record);
  } catch (const std::exception& e) {
    stop_locked(e.what());
  }
}

void CallLog::stop_locked(const std::string& why) {
  int open = kOpen;
  if (!state_.compare_exchange_strong(open, kClosed)) return;
  file_->close();
  std::fprintf(stderr, "collsel: rank %d: logging failed (%s); later calls are not logged\n",
               info_.world_rank, why.c_str());
}

void CallLog::add_locked(const CallRecord& record) {
  if (record.site.depth > 0) check_site_locked(record.site);
  if (info_.level != LogLevel::trace) {
    summarise_locked(record, summary_->entry(key_of(record)));
    return;
  }
  // The first traces_per_site calls of each key are traced and the later ones summarised: one
  // lookup in the summary table decides, and counts the traces. A key the full table has no room
  // for is not traced (it could not be counted), only summarised in its overflow entry.
  SummaryEntry* entry = nullptr;
  if (info_.traces_per_site > 0) {
    entry = summary_->entry(key_of(record));
    if (entry == nullptr) {
      summary_->count_sampled();
      summarise_locked(record, nullptr);
      return;
    }
    if (entry->traced >= info_.traces_per_site) {
      summary_->count_sampled();
      summarise_locked(record, entry);
      return;
    }
  }
  if (traced_ < info_.max_records && file_->size() < trace_bytes_) {
    trace_locked(record);
    if (entry != nullptr) ++entry->traced;
    return;
  }
  if (traced_ == info_.max_records) {
    ++traced_;  // past the cap: noted once
    if (info_.world_rank == 0) {
      fmt::print(stderr,
                 "collsel: rank 0 reached [log] max_records = {} call records; later calls are "
                 "summarised per call site in the log's summary records; raise max_records or "
                 "use level = \"summary\"\n",
                 info_.max_records);
    }
  } else if (traced_ < info_.max_records && !bytes_noted_) {
    bytes_noted_ = true;
    if (info_.world_rank == 0) {
      fmt::print(stderr,
                 "collsel: rank 0's log reached 3/4 of [log] max_bytes = {} after {} call "
                 "records; later calls are summarised per call site in the log's summary "
                 "records; raise max_bytes (0: no bound) or use level = \"summary\"\n",
                 info_.max_bytes, traced_);
    }
  }
  summarise_locked(record, entry != nullptr ? entry : summary_->entry(key_of(record)));
}

std::uint64_t CallLog::site_id_locked(const CallSite& site) {
  if (!stacks_) return 0;
  const StackIds::Id site_id = stacks_->find_or_add(site);
  if (site_id.fresh) {
    append_record(text_, logs::schema::kStack, StackView{site_id.id, site},
                  [](const auto& v, auto&& f) { logs::schema::stack_fields(v, f); });
  }
  return site_id.id;
}

void CallLog::trace_locked(const CallRecord& record) {
  // Formatted now, straight into the mapped file: the record survives any ending. A new call
  // site's `stack` record goes first, in the same append: a cut never separates them.
  text_.clear();
  const std::uint64_t site = site_id_locked(record.site);
  const CallView view{std::string_view(record.comm.data()), record.comm_rank, record.comm_size,
                      record.seq, collective_name(record.coll), record.bytes, record.root,
                      record.algorithm, record.segment_bytes, record.window,
                      rung_name(record.rung), prediction(record.predicted_s), record.simulated,
                      clock_reading(record.actual_s), clock_reading(record.setup_s),
                      clock_reading(record.start_s), site};
  append_record(text_, logs::schema::kCall, view, [](const auto& v, auto&& f) {
    logs::schema::call_fields(v, f);
  });
  if (!file_->append(std::string_view(text_.data(), text_.size()))) {
    stop_locked(file_->failure());
    return;
  }
  ++traced_;
  written_.fetch_add(1, std::memory_order_relaxed);
}

void CallLog::summarise_locked(const CallRecord& r, SummaryEntry* entry) {
  summary_->count(entry, r.coll, r.rung, r.bytes, r.actual_s, r.predicted_s);
  if (entry != nullptr || overflow_noted_) return;
  overflow_noted_ = true;
  if (info_.world_rank == 0) {
    fmt::print(stderr,
               "collsel: rank 0's summary table is full ([log] summary_entries = {}); calls with "
               "new keys are counted per collective in overflow entries{}; raise "
               "summary_entries\n",
               summary_->capacity(),
               info_.level == LogLevel::trace && info_.traces_per_site > 0 ? " and not traced"
                                                                            : "");
  }
}

void CallLog::check_site_locked(const CallSite& site) {
  const std::size_t hash = CallSiteHash{}(site) | 1;  // 0 marks an empty slot
  std::size_t& slot = recent_sites_[hash % recent_sites_.size()];
  if (slot == hash) return;
  slot = hash;
  write_new_modules_locked();
}

void CallLog::write_summary_locked() {
  // Summaries may fill the file up to max_bytes, less room for the closing records (modules are
  // mostly written at start; at most a few dozen uncovered records, and the end).
  constexpr std::uint64_t kClosingRoom = 16 * 1024;
  const std::uint64_t limit = info_.max_bytes == 0 ? std::numeric_limits<std::uint64_t>::max()
                                                   : info_.max_bytes - std::min(info_.max_bytes,
                                                                                kClosingRoom);
  bool noted = false;
  const auto write = [&](const SummaryEntry& e) {
    if (file_->size() >= limit) {
      unwritten_ += e.calls;
      if (!noted && info_.world_rank == 0) {
        noted = true;
        fmt::print(stderr,
                   "collsel: rank 0's log reached [log] max_bytes = {}; summary records past it "
                   "are left out (the end record counts their calls as unwritten_calls); raise "
                   "max_bytes or lower summary_entries\n",
                   info_.max_bytes);
      }
      return;
    }
    summarised_written_ += e.calls;
    text_.clear();
    const SummaryKey k = summary_->key(e);
    const std::uint64_t site = e.is_overflow() ? 0 : site_id_locked(k.site);
    std::optional<double> predicted_min, predicted_max;  // none without a prediction
    if (e.predicted_calls > 0) {
      predicted_min = e.predicted_min_s;
      predicted_max = e.predicted_max_s;
    }
    const SummaryView view{k.comm_size, collective_name(k.coll), k.algorithm,
                           rung_name(e.first_rung()), bucket_low(e.bucket_lo), bucket_high(e.bucket_hi),
                           site, e.is_overflow(), e.calls, e.bytes_sum, e.actual_sum_s,
                           e.actual_min_s, e.actual_max_s, e.predicted_calls, e.predicted_sum_s,
                           predicted_min, predicted_max};
    append_record(text_, logs::schema::kSummary, view, [](const auto& v, auto&& f) {
      logs::schema::summary_fields(v, f);
    });
    file_->append(std::string_view(text_.data(), text_.size()));
  };
  for (const SummaryEntry& e : summary_->entries()) {
    if (e.calls > 0) write(e);  // an entry of traced calls only has nothing to summarise
  }
  for (const SummaryEntry& e : summary_->overflow_entries()) {
    if (e.calls > 0) write(e);
  }
}

void CallLog::write_new_modules_locked() {
  // What a report needs to symbolise this rank's call sites (ASLR: each rank has its own layout):
  // written at start and again when an object appeared, so that a log cut short still has them.
  const unsigned long long added = loaded_objects_added();
  if (added == modules_added_ && added != 0) return;
  modules_added_ = added;
  for (const LoadedObject& o : loaded_objects()) {
    const std::pair<std::string, std::uint64_t> key{o.path, o.base};
    if (std::find(modules_written_.begin(), modules_written_.end(), key) !=
        modules_written_.end()) {
      continue;
    }
    modules_written_.push_back(key);
    write_record(logs::schema::kModule, o, [](const auto& v, auto&& f) {
      logs::schema::module_fields(v, f);
    });
  }
}

void CallLog::add_uncovered(std::vector<uncovered::Count> counts, bool not_served_counted) {
  std::lock_guard lock(mutex_);
  uncovered_ = std::move(counts);
  uncovered_counted_ = not_served_counted;
}

void CallLog::write_uncovered_locked() {
  for (const uncovered::Count& c : uncovered_) {
    const UncoveredView view{
        c.name, c.timing == uncovered::Timing::whole ? "whole" : "initiation", c.calls, c.time_s,
        c.reason == uncovered::Reason::before_serving ? logs::schema::kReasonBeforeServing
                                                      : std::string_view{}};
    write_record(logs::schema::kUncovered, view, [](const auto& v, auto&& f) {
      logs::schema::uncovered_fields(v, f);
    });
  }
}

void CallLog::close(Ending how, int code, std::string_view cause) {
  // A child of fork() shares the mapping and inherits the atexit and signal handlers: its ending
  // is not this rank's, and must not write into the rank's file.
  if (::getpid() != owner_) return;
  std::lock_guard lock(mutex_);
  int open = kOpen;
  if (!state_.compare_exchange_strong(open, kClosing)) return;
  std::string failure;
  try {
    write_summary_locked();
    if (info_.stack_depth > 0) write_new_modules_locked();
    write_uncovered_locked();
    // The summary and uncovered records are in the log (the page cache): the table's file, which
    // holds the uncovered counters too, has served. Deleted before the end record is written, so
    // that a log with an end record never has one (a rank SIGKILLed in between has all those
    // records and no end: the reader takes the records). Kept when the records could not be
    // written: the reader recovers the summaries and counts from it.
    if (file_->ok()) summary_->remove_file();
    const EndView end{written_.load(),  summarised_written_, summary_->overflow_calls(),
                      uncovered_counted_, ending_name(how),    code,
                      unwritten_,       summary_->sampled_calls(), cause};
    write_record(logs::schema::kEnd, end, [](const auto& v, auto&& f) {
      logs::schema::end_fields(v, f);
    });
    failure = file_->failure();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (const std::string closing = file_->close(); failure.empty()) failure = closing;
  state_.store(kClosed);
  // A full disk or a lost file system must not fail the user's MPI_Finalize: the rank's log is
  // left incomplete (readers see a missing or short `end`), with one line saying so.
  if (!failure.empty()) {
    fmt::print(stderr, "collsel: rank {}: writing the log failed ({}); its log is incomplete\n",
               info_.world_rank, failure);
  }
}

void CallLog::end_from_signal(int signal) noexcept {
  // No lock, no allocation, no stdio: the signal may have interrupted add() on this very thread.
  // A record add() had begun is dropped by append_final(); the summary table may be mid-update,
  // so its calls are only counted.
  if (::getpid() != owner_) return;  // a fork()ed child's signal (see close())
  int open = kOpen;
  if (!state_.compare_exchange_strong(open, kClosing)) return;
  const std::uint64_t calls = written_.load(std::memory_order_relaxed);
  const EndView end{calls, 0, 0, false, logs::schema::kEndingSignal, signal,
                    summary_ ? summary_->calls() : 0, 0, {}};
  // Inline storage well above what JsonFields reserves, so formatting never allocates.
  fmt::basic_memory_buffer<char, 16384> out;
  append_record(out, logs::schema::kEnd, end, [](const auto& v, auto&& f) {
    logs::schema::end_fields(v, f);
  });
  file_->append_final(std::string_view(out.data(), out.size()));
  state_.store(kClosed);
}

}  // namespace collsel::pmpi

// Reads the JSON Lines rank files of one run into a RunLog: one RankFileReader per file, then the
// merge and the checks across files. The typed field access is record_fields.hpp; the binary
// summary table read back after a crash is summary_table_reader.cpp.
#include "tools/logs/log_reader.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/log_schema.hpp"
#include "tools/logs/record_fields.hpp"

namespace collsel::logs {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {
using detail::Fields;
using detail::FieldReader;
using detail::StackTable;
using detail::summary_inconsistency;

// A garbage file (say, a binary written to the log directory by mistake) would otherwise bury the
// useful messages; past this many per file only a count is kept.
constexpr int kMaxProblemsPerFile = 20;

// Who wrote a record: in version 1 the record says it, from version 2 on its file's run record.
struct Origin {
  std::string run;
  int world_rank = -1;
};

RunHeader parse_run(Fields& f, const json& object, int version) {
  RunHeader h;
  FieldReader read(f, object, version);
  schema::origin_fields(h, read);
  schema::run_fields(h, read);
  h.stack_depth = std::clamp(h.stack_depth, 0, 64);
  return h;
}

// A record with the run id and world rank of its writer: read from it in version 1, given by
// `origin` (its file's) after.
template <class Record, class ReadFields>
Record parse_with_origin(Fields& f, const json& object, int version, StackTable* stacks,
                         const Origin& origin, ReadFields read_fields) {
  Record r;
  FieldReader read(f, object, version, stacks);
  if (version == 1) {
    schema::origin_fields(r, read);
  } else {
    r.run = origin.run;
    r.world_rank = origin.world_rank;
  }
  read_fields(r, read);
  return r;
}

LoggedCall parse_call(Fields& f, const json& object, int version, StackTable& stacks,
                      const Origin& origin) {
  LoggedCall c = parse_with_origin<LoggedCall>(
      f, object, version, &stacks, origin,
      [](auto& r, auto& read) { schema::call_fields(r, read); });
  c.window = std::max(c.window, 0);
  return c;
}

SummaryRecord parse_summary(Fields& f, const json& object, int version, StackTable& stacks,
                            const Origin& origin) {
  return parse_with_origin<SummaryRecord>(
      f, object, version, &stacks, origin,
      [](auto& r, auto& read) { schema::summary_fields(r, read); });
}

UncoveredRecord parse_uncovered(Fields& f, const json& object, int version,
                                const Origin& origin) {
  return parse_with_origin<UncoveredRecord>(
      f, object, version, nullptr, origin,
      [](auto& r, auto& read) { schema::uncovered_fields(r, read); });
}

Module parse_module(Fields& f, const json& object, int version) {
  Module m;
  schema::module_fields(m, FieldReader(f, object, version));
  return m;
}

// A `stack` record (version 2 on).
struct StackRecord {
  std::uint64_t id = 0;
  std::vector<std::uint64_t> pcs;
};

// The `end` record's counts.
struct EndCounts {
  std::int64_t calls = 0;
  std::int64_t summarised_calls = 0;  // absent before the summary level existed: none
  std::int64_t overflow_calls = 0;
  bool uncovered_counted = false;  // absent before issue 17: not counted
  std::string ending{schema::kEndingFinalize};  // absent before issue 20: MPI_Finalize
  int code = 0;
  std::int64_t unwritten_calls = 0;
  std::int64_t sampled_calls = 0;  // absent before format 2: no sampling
  std::string cause;               // absent unless collsel itself aborted the job
};

// nlohmann's messages start with "[json.exception.parse_error.101] parse error at line 1, "; the
// line is always 1 (we parse one line at a time), so keep only the column and the reason.
std::string short_parse_error(const std::string& what) {
  const auto column = what.find("column");
  return column == std::string::npos ? what : what.substr(column);
}

// Everything read from one rank file, before it is merged into the RunLog.
class RankFileReader {
 public:
  explicit RankFileReader(fs::path path) : path_(std::move(path)), name_(path_.string()) {}

  void read(RunLog& out) {
    std::ifstream in(path_);
    if (!in) {
      problem(0, "cannot be opened");
      flush_problems(out);
      return;
    }
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      // The shim writes through a file mapping that grows in chunks; a process that died before
      // closing its log leaves the rest of the last chunk as NUL bytes (docs/LOGS.md).
      if (const auto nul = line.find('\0'); nul != std::string::npos) {
        padded_ = true;
        line.resize(nul);
      }
      read_line(line, number, out);
    }
    finish(out);
  }

 private:
  void read_line(const std::string& line, int number, RunLog& out) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) return;  // trailing newline etc.
    json record;
    try {
      record = json::parse(line);
    } catch (const json::parse_error& e) {
      problem(number,
              fmt::format("not valid JSON ({}); line skipped", short_parse_error(e.what())));
      return;
    }
    if (!record.is_object()) {
      problem(number, "not a JSON object; line skipped");
      return;
    }
    const int version = version_of(record, number);
    if (version == 0) return;
    dispatch(record, number, version, out);
  }

  // The record's format version, or 0 (and a problem) when this reader does not read it.
  int version_of(const json& record, int number) {
    const auto v = record.find("v");
    if (v == record.end() || !v->is_number_integer()) {
      problem(number, "no format version 'v' (an integer); record skipped");
      return 0;
    }
    const std::int64_t version = v->get<std::int64_t>();
    if (version < schema::kOldestVersion || version > schema::kVersion) {
      problem(number, fmt::format("format version {}, but this collsel reads versions {} to {}; "
                                  "record skipped (use the collsel that wrote the log)",
                                  v->dump(), schema::kOldestVersion, schema::kVersion));
      return 0;
    }
    return static_cast<int>(version);
  }

  void dispatch(const json& record, int number, int version, RunLog& out) {
    const auto type = record.find("type");
    if (type == record.end() || !type->is_string()) {
      problem(number, "no record type 'type' (a string); record skipped");
      return;
    }
    const auto& kind = type->get_ref<const std::string&>();
    if (kind == schema::kRun) {
      on_run(record, number, version);
    } else if (kind == schema::kCall) {
      on_call(record, number, version, out);
    } else if (kind == schema::kSummary) {
      on_summary(record, number, version);
    } else if (kind == schema::kStack) {
      on_stack(record, number, version);
    } else if (kind == schema::kModule) {
      on_module(record, number, version);
    } else if (kind == schema::kUncovered) {
      on_uncovered(record, number, version, out);
    } else if (kind == schema::kEnd) {
      on_end(record, number, version);
    } else {
      // A later version may add record kinds without changing the meaning of these ones.
      ++unknown_types_[kind];
    }
  }

  void on_run(const json& record, int number, int version) {
    Fields f(record);
    RunHeader h = parse_run(f, record, version);
    if (!f.error().empty()) {
      problem(number, fmt::format("'run' record: {}; record skipped", f.error()));
      return;
    }
    if (header_) {
      problem(number, "a second 'run' record; ignored");
      return;
    }
    h.file = name_;
    header_ = std::move(h);
  }

  void on_call(const json& record, int number, int version, RunLog& out) {
    Fields f(record);
    LoggedCall c = parse_call(f, record, version, stacks_, origin());
    if (!f.error().empty()) {
      problem(number, fmt::format("'call' record: {}; record skipped", f.error()));
      return;
    }
    check_run(c.run, "call", number);
    ++call_records_;
    out.calls.push_back(std::move(c));
  }

  void on_summary(const json& record, int number, int version) {
    Fields f(record);
    SummaryRecord s = parse_summary(f, record, version, stacks_, origin());
    std::string error = f.error();
    if (error.empty()) error = summary_inconsistency(s);
    if (!error.empty()) {
      problem(number, fmt::format("'summary' record: {}; record skipped", error));
      return;
    }
    check_run(s.run, "summary", number);
    summary_calls_ += s.calls;
    summaries_.push_back(std::move(s));
  }

  void on_stack(const json& record, int number, int version) {
    Fields f(record);
    StackRecord st;
    schema::stack_fields(st, FieldReader(f, record, version));
    if (!f.error().empty()) {
      problem(number, fmt::format("'stack' record: {}; record skipped", f.error()));
      return;
    }
    if (!stacks_.pcs.emplace(st.id, std::move(st.pcs)).second) {
      problem(number, fmt::format("a second 'stack' record of id {}; ignored", st.id));
    }
  }

  void on_module(const json& record, int number, int version) {
    Fields f(record);
    Module m = parse_module(f, record, version);
    if (!f.error().empty()) {
      problem(number, fmt::format("'module' record: {}; record skipped", f.error()));
      return;
    }
    modules_.push_back(std::move(m));
  }

  void on_uncovered(const json& record, int number, int version, RunLog& out) {
    Fields f(record);
    UncoveredRecord u = parse_uncovered(f, record, version, origin());
    std::string error = f.error();
    if (error.empty() && (u.calls < 0 || u.time_s < 0.0)) {
      error = fmt::format("negative 'calls' {} or 'time_s' {}", u.calls, u.time_s);
    }
    if (!error.empty()) {
      problem(number, fmt::format("'uncovered' record: {}; record skipped", error));
      return;
    }
    check_run(u.run, "uncovered", number);
    uncovered_read_ = true;
    out.uncovered.push_back(std::move(u));
  }

  void on_end(const json& record, int number, int version) {
    Fields f(record);
    EndCounts e;
    schema::end_fields(e, FieldReader(f, record, version));
    if (!f.error().empty()) {
      problem(number, fmt::format("'end' record: {}; record skipped", f.error()));
      return;
    }
    end_calls_ = e.calls;
    end_summarised_ = e.summarised_calls;
    end_overflow_ = e.overflow_calls;
    end_uncovered_counted_ = e.uncovered_counted;
    ending_ = e.ending;
    ending_code_ = e.code;
    ending_cause_ = e.cause;
    end_unwritten_ = e.unwritten_calls;
    end_sampled_ = e.sampled_calls;
  }

  // The writer of this file's version 2 records: its run record's, else (no valid run record) the
  // run directory's name and the rank in the file's name.
  Origin origin() const {
    if (header_) return {header_->run, header_->world_rank};
    Origin o{path_.parent_path().filename().string(), -1};
    const std::string name = path_.stem().string();  // rank-NNNNN
    int rank = -1;
    const auto* digits = name.data() + std::min<std::size_t>(name.size(), 5);
    const auto [ptr, ec] = std::from_chars(digits, name.data() + name.size(), rank);
    if (ec == std::errc() && ptr == name.data() + name.size()) o.world_rank = rank;
    return o;
  }

  // Reported once per file: one foreign record usually means the whole file was mixed up.
  // (Version 2 records have no run of their own: they are their file's.)
  void check_run(const std::string& run, std::string_view kind, int number) {
    if (!header_ || run == header_->run || reported_foreign_run_) return;
    reported_foreign_run_ = true;
    problem(number, fmt::format("{} of run '{}' in a file of run '{}'", kind, run, header_->run));
  }

  void finish(RunLog& out) {
    for (const auto& [kind, n] : unknown_types_) {
      problem(0, fmt::format("{} record(s) of unknown type '{}' ignored (written by a newer "
                             "collsel?)", n, kind));
    }
    const bool recovered = recover_summaries();
    // A rank SIGKILLed while ending cleanly, after its summary records and before its end
    // record (its table's file is already gone): the records it wrote are its summaries.
    if (!end_calls_ && !recovered) end_summarised_ = summary_calls_;
    out.summaries.insert(out.summaries.end(), std::make_move_iterator(summaries_.begin()),
                         std::make_move_iterator(summaries_.end()));
    out.uncovered.insert(out.uncovered.end(),
                         std::make_move_iterator(recovered_uncovered_.begin()),
                         std::make_move_iterator(recovered_uncovered_.end()));
    if (!end_calls_) {
      problem(0, "no 'end' record: the log was cut short (the process was killed by SIGKILL, "
                 "which runs no code, or its node failed); every record before the cut is read");
    } else if (*end_calls_ != call_records_) {
      problem(0, fmt::format("the 'end' record counts {} calls but {} call records were read",
                             *end_calls_, call_records_));
    }
    if (stacks_.unknown_uses > 0) {
      problem(0, fmt::format("{} record(s) name a call site with no 'stack' record before them "
                             "(the first: id {}); their call site is left empty",
                             stacks_.unknown_uses, stacks_.first_unknown));
    }
    if (end_calls_ && !recovered && end_summarised_ != summary_calls_) {
      problem(0, fmt::format("the 'end' record counts {} summarised calls but the summary records "
                             "read hold {}",
                             end_summarised_, summary_calls_));
    }
    if (header_) {
      header_->end_calls = end_calls_;
      header_->call_records = call_records_;
      header_->summarised_calls = end_summarised_;
      header_->overflow_calls = end_overflow_;
      header_->uncovered_counted = end_uncovered_counted_;
      header_->ending = end_calls_ ? ending_ : std::string();
      header_->ending_code = ending_code_;
      header_->ending_cause = end_calls_ ? ending_cause_ : std::string();
      header_->unwritten_calls = end_unwritten_;
      header_->sampled_calls = end_sampled_;
      header_->cut_padding = padded_;
      header_->summaries_recovered = recovered;
      header_->modules = std::move(modules_);
      out.ranks.push_back(std::move(*header_));
    } else {
      problem(0, "no valid 'run' record (every rank file starts with one); host and model of this "
                 "rank unknown");
    }
    flush_problems(out);
  }

  // A rank that did not reach a clean ending (no `end` record: SIGKILL; or a fatal signal, whose
  // handler cannot format) could not write its summary table: its file, when there, holds the
  // table as the rank's last completed call left it. Its entries replace any summary records the
  // log holds (a rank killed while writing them wrote only some). True when recovered.
  bool recover_summaries() {
    if (end_calls_ && ending_ != schema::kEndingSignal) return false;  // written whole
    const fs::path table_path = summary_table_path(path_);
    std::error_code ec;
    if (!fs::exists(table_path, ec)) return false;
    std::string why;
    std::optional<SummaryTable> table = read_summary_table(table_path, why);
    if (!table) {
      problem(0, fmt::format("its summary table {} cannot be read ({}); the calls this rank "
                             "summarised are lost",
                             table_path.string(), why));
      return false;
    }
    recover_uncovered(*table);
    if (table->calls == 0) return false;  // nothing was summarised
    const Origin o = origin();
    for (SummaryRecord& r : table->summaries) {
      r.run = o.run;
      r.world_rank = o.world_rank;
    }
    summaries_ = std::move(table->summaries);
    summary_calls_ = table->calls;
    end_summarised_ = table->calls;
    end_overflow_ = table->overflow_calls;
    end_sampled_ = table->sampled_calls;
    // A signal's end record counted the table's calls as unwritten: they are not any more.
    end_unwritten_ = std::max<std::int64_t>(0, end_unwritten_ - table->calls);
    return true;
  }

  // The counts of the calls run without a record, from the table of a rank that wrote no
  // `uncovered` records (they are written with the end record of a clean ending).
  void recover_uncovered(SummaryTable& table) {
    if (uncovered_read_ || (table.uncovered.empty() && !table.uncovered_counted)) return;
    const Origin o = origin();
    for (UncoveredRecord& r : table.uncovered) {
      r.run = o.run;
      r.world_rank = o.world_rank;
      recovered_uncovered_.push_back(std::move(r));
    }
    end_uncovered_counted_ = table.uncovered_counted;
  }

  void problem(int line, std::string what) {
    ++problem_count_;
    if (problem_count_ > kMaxProblemsPerFile) return;
    problems_.push_back(line > 0 ? fmt::format("{}:{}: {}", name_, line, what)
                                 : fmt::format("{}: {}", name_, what));
  }

  void flush_problems(RunLog& out) {
    out.problems.insert(out.problems.end(), problems_.begin(), problems_.end());
    if (problem_count_ > kMaxProblemsPerFile) {
      out.problems.push_back(fmt::format("{}: {} more problems not shown", name_,
                                         problem_count_ - kMaxProblemsPerFile));
    }
  }

  fs::path path_;
  std::string name_;
  std::optional<RunHeader> header_;
  std::optional<std::int64_t> end_calls_;
  std::int64_t end_summarised_ = 0;
  std::int64_t end_overflow_ = 0;
  bool end_uncovered_counted_ = false;
  std::string ending_;
  int ending_code_ = 0;
  std::string ending_cause_;
  std::int64_t end_unwritten_ = 0;
  std::int64_t end_sampled_ = 0;
  bool padded_ = false;
  StackTable stacks_;
  std::vector<SummaryRecord> summaries_;  // this file's, moved into the RunLog at finish()
  bool uncovered_read_ = false;           // the file has `uncovered` records
  std::vector<UncoveredRecord> recovered_uncovered_;  // from its table, moved at finish()
  std::int64_t call_records_ = 0;
  std::int64_t summary_calls_ = 0;  // calls counted by the summary records read
  std::vector<Module> modules_;
  std::map<std::string, int> unknown_types_;
  bool reported_foreign_run_ = false;
  int problem_count_ = 0;
  std::vector<std::string> problems_;
};

bool is_rank_file(const fs::directory_entry& entry) {
  const std::string name = entry.path().filename().string();
  return entry.is_regular_file() && name.starts_with("rank-") && name.ends_with(".jsonl");
}

void check_run_ids(RunLog& log) {
  for (const RunHeader& h : log.ranks) {
    if (h.run != log.run_id) {
      log.problems.push_back(fmt::format("{}: run '{}' differs from run '{}' of the other files",
                                         h.file, h.run, log.run_id));
    }
  }
}

void check_world_size(RunLog& log) {
  if (log.ranks.empty()) return;
  const int world_size = log.ranks.front().world_size;
  if (static_cast<int>(log.ranks.size()) < world_size) {
    log.problems.push_back(fmt::format("{}: {} of {} rank files found; calls of the missing ranks "
                                       "are absent",
                                       log.dir, log.ranks.size(), world_size));
  }
}

}  // namespace

std::string describe_ending(const RunHeader& rank) {
  if (rank.ending.empty()) return "cut short (no end record: killed by SIGKILL?)";
  if (rank.ending == schema::kEndingFinalize) return "MPI_Finalize";
  if (rank.ending == schema::kEndingExit) return "exit() without MPI_Finalize";
  if (rank.ending == schema::kEndingAbort) {
    if (rank.ending_cause.empty()) return fmt::format("MPI_Abort (code {})", rank.ending_code);
    return fmt::format("MPI_Abort (code {}) by collsel: {}", rank.ending_code, rank.ending_cause);
  }
  if (rank.ending == schema::kEndingSignal) {
    const char* name = sigabbrev_np(rank.ending_code);
    return name != nullptr ? fmt::format("signal {} (SIG{})", rank.ending_code, name)
                           : fmt::format("signal {}", rank.ending_code);
  }
  return rank.ending;  // a later collsel's ending
}

std::vector<fs::path> rank_files(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (is_rank_file(entry)) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::optional<fs::path> find_run_dir(const fs::path& dir_or_logdir, std::string_view run_id) {
  if (!run_id.empty()) {
    if (dir_or_logdir.filename() == run_id && !rank_files(dir_or_logdir).empty()) {
      return dir_or_logdir;
    }
    const fs::path candidate = dir_or_logdir / run_id;
    if (!rank_files(candidate).empty()) return candidate;
    return std::nullopt;
  }
  if (!rank_files(dir_or_logdir).empty()) return dir_or_logdir;
  std::vector<fs::path> runs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_or_logdir, ec)) {
    if (entry.is_directory() && !rank_files(entry.path()).empty()) runs.push_back(entry.path());
  }
  if (runs.empty()) return std::nullopt;
  return *std::max_element(runs.begin(), runs.end(), [](const fs::path& a, const fs::path& b) {
    return a.filename() < b.filename();
  });
}

RunLog read_run_dir(const fs::path& run_dir) {
  RunLog log;
  log.dir = run_dir.string();
  for (const fs::path& file : rank_files(run_dir)) RankFileReader(file).read(log);
  std::sort(log.ranks.begin(), log.ranks.end(),
            [](const RunHeader& a, const RunHeader& b) { return a.world_rank < b.world_rank; });
  // The directory is named after the run; the headers say it too, and should agree.
  log.run_id = log.ranks.empty() ? run_dir.filename().string() : log.ranks.front().run;
  check_run_ids(log);
  check_world_size(log);
  return log;
}

RunLog read_run(const fs::path& dir_or_logdir, std::string_view run_id) {
  if (const auto dir = find_run_dir(dir_or_logdir, run_id)) return read_run_dir(*dir);
  RunLog log;
  log.dir = dir_or_logdir.string();
  std::error_code ec;
  if (!fs::is_directory(dir_or_logdir, ec)) {
    log.problems.push_back(fmt::format("{}: no such directory", log.dir));
  } else if (!run_id.empty()) {
    log.problems.push_back(
        fmt::format("{}: no run '{}' (no {}/{}/rank-*.jsonl files)", log.dir, run_id, log.dir,
                    run_id));
  } else {
    log.problems.push_back(fmt::format(
        "{}: no rank-*.jsonl files, neither directly in it nor in a run subdirectory", log.dir));
  }
  return log;
}

}  // namespace collsel::logs

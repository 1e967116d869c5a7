#include "tools/report.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tools/duration_format.hpp"
#include "tools/size_parse.hpp"
#include "tools/text_table.hpp"

namespace collsel::report {
namespace {

using logs::CallRecord;
// Ordered: keys come out in the documented order, which people reading the JSON appreciate.
using json = nlohmann::ordered_json;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Enough examples to find the calls in the log; the count says how many there are in all.
constexpr std::size_t kDisagreementExamples = 5;

// ---- merging one call's records --------------------------------------------------------------

std::string choice_label(const CallRecord& r) {
  return r.segment_bytes == 0 ? r.algorithm : fmt::format("{}/{}B", r.algorithm, r.segment_bytes);
}

bool same_shape(const CallRecord& a, const CallRecord& b) {
  return a.coll == b.coll && a.bytes == b.bytes && a.root == b.root && a.comm_size == b.comm_size;
}

// `records` all belong to one (run, comm, seq), sorted by comm_rank.
MergedCall merge_one(const std::vector<const CallRecord*>& records) {
  const CallRecord& ref = *records.front();  // lowest comm_rank: its decision is the call's
  MergedCall m;
  m.run = ref.run;
  m.comm = ref.comm;
  m.seq = ref.seq;
  m.coll = ref.coll;
  m.bytes = ref.bytes;
  m.root = ref.root;
  m.comm_size = ref.comm_size;
  m.algorithm = ref.algorithm;
  m.segment_bytes = ref.segment_bytes;
  m.rung = ref.rung;
  m.predicted_s = ref.predicted_s;
  m.actual_s = ref.actual_s;
  std::set<int> ranks;
  std::set<std::string> choices;
  for (const CallRecord* r : records) {
    m.actual_s = std::max(m.actual_s, r->actual_s);
    if (!ranks.insert(r->comm_rank).second) ++m.duplicate_records;
    choices.insert(choice_label(*r));
    if (!same_shape(ref, *r)) m.shape_mismatch = true;
  }
  m.ranks_present = static_cast<int>(ranks.size());
  m.ranks_disagree = choices.size() > 1;
  if (m.ranks_disagree) m.algorithms_seen.assign(choices.begin(), choices.end());
  return m;
}

// ---- grouping merged calls into rows ---------------------------------------------------------

using RowKey = std::tuple<std::string, std::string, std::uint64_t, int>;

struct RowSums {
  int calls = 0;
  int incomplete = 0;
  std::set<std::uint64_t> segments;
  std::set<std::string> rungs;
  double actual_sum = 0.0;
  double actual_min = std::numeric_limits<double>::infinity();
  double actual_max = -std::numeric_limits<double>::infinity();
  int predicted = 0;
  double predicted_sum = 0.0;
  double rel_sum = 0.0;
  double abs_rel_sum = 0.0;

  void add(const MergedCall& c) {
    ++calls;
    if (c.ranks_present < c.comm_size) ++incomplete;
    segments.insert(c.segment_bytes);
    rungs.insert(c.rung);
    actual_sum += c.actual_s;
    actual_min = std::min(actual_min, c.actual_s);
    actual_max = std::max(actual_max, c.actual_s);
    // E_rel divides by the actual time; a zero (timer resolution, P = 1) has no relative error.
    if (!c.predicted_s || !(c.actual_s > 0.0)) return;
    const double rel = (*c.predicted_s - c.actual_s) / c.actual_s;
    ++predicted;
    predicted_sum += *c.predicted_s;
    rel_sum += rel;
    abs_rel_sum += std::fabs(rel);
  }
};

Row make_row(const RowKey& key, const RowSums& s) {
  Row row;
  std::tie(row.coll, row.algorithm, row.bytes, row.comm_size) = key;
  row.calls = s.calls;
  row.incomplete_calls = s.incomplete;
  row.segment_bytes.assign(s.segments.begin(), s.segments.end());
  row.rungs.assign(s.rungs.begin(), s.rungs.end());
  row.mean_actual_s = s.actual_sum / s.calls;
  row.min_actual_s = s.actual_min;
  row.max_actual_s = s.actual_max;
  row.predicted_calls = s.predicted;
  const double n = s.predicted;
  row.mean_predicted_s = s.predicted > 0 ? s.predicted_sum / n : kNaN;
  row.mean_rel_error = s.predicted > 0 ? s.rel_sum / n : kNaN;
  row.mean_abs_rel_error = s.predicted > 0 ? s.abs_rel_sum / n : kNaN;
  return row;
}

// ---- run-level facts -------------------------------------------------------------------------

template <typename Getter>
std::vector<std::string> distinct(const std::vector<logs::RunHeader>& ranks, Getter get) {
  std::set<std::string> values;
  for (const auto& h : ranks) values.insert(get(h));
  return {values.begin(), values.end()};
}

void fill_run_facts(const logs::RunLog& log, Report& r) {
  r.run_id = log.run_id;
  r.dir = log.dir;
  r.rank_files = static_cast<int>(log.ranks.size());
  for (const auto& h : log.ranks) r.world_size = std::max(r.world_size, h.world_size);
  r.hosts = distinct(log.ranks, [](const auto& h) { return h.host; });
  r.models = distinct(log.ranks, [](const auto& h) { return h.model; });
  r.configs = distinct(log.ranks, [](const auto& h) { return h.config; });
  r.collsel_versions = distinct(log.ranks, [](const auto& h) { return h.collsel_version; });
  r.records = log.calls.size();
  r.problems = log.problems;
}

void count_anomalies(const std::vector<MergedCall>& calls, Report& r) {
  int duplicates = 0;
  for (const MergedCall& c : calls) {
    if (c.ranks_present < c.comm_size) ++r.incomplete_calls;
    if (c.shape_mismatch) ++r.shape_mismatch_calls;
    duplicates += c.duplicate_records;
    if (!c.ranks_disagree) continue;
    ++r.disagreeing_calls;
    if (r.disagreements.size() < kDisagreementExamples) {
      r.disagreements.push_back({c.comm, c.seq, c.algorithms_seen});
    }
  }
  if (duplicates > 0) {
    r.warnings.push_back(fmt::format(
        "{} duplicate call record(s): the same (comm, seq, comm_rank) was logged twice; the log "
        "directory may mix two runs",
        duplicates));
  }
}

std::string disagreement_examples(const Report& r) {
  std::string out;
  for (const Disagreement& d : r.disagreements) {
    out += fmt::format("; comm {} seq {}: {}", d.comm, d.seq, fmt::join(d.algorithms, " vs "));
  }
  return out;
}

void add_warnings(Report& r) {
  if (r.disagreeing_calls > 0) {
    r.warnings.insert(
        r.warnings.begin(),
        fmt::format("RANKS DISAGREED on the algorithm or segment size in {} call(s). This must "
                    "never happen: every input of the decision is equal on all ranks, and ranks "
                    "running different algorithms can deadlock or corrupt data. Please report it "
                    "with this log directory{}",
                    r.disagreeing_calls, disagreement_examples(r)));
  }
  if (r.shape_mismatch_calls > 0) {
    r.warnings.push_back(fmt::format(
        "{} call(s) where ranks logged a different collective, size, root or communicator size "
        "for the same (comm, seq): the program's calls did not match across ranks, or the log is "
        "damaged; the row uses the lowest comm_rank's values",
        r.shape_mismatch_calls));
  }
  if (r.incomplete_calls > 0) {
    r.warnings.push_back(fmt::format(
        "{} call(s) lack records from some ranks of their communicator; their actual time is the "
        "maximum over the ranks present, a lower bound (see the problems for missing files)",
        r.incomplete_calls));
  }
}

// ---- formatting helpers ----------------------------------------------------------------------

std::string segment_cell(const std::vector<std::uint64_t>& segments) {
  if (segments.empty() || (segments.size() == 1 && segments.front() == 0)) return "-";
  if (segments.size() == 1) return tools::format_size(segments.front());
  return fmt::format("{}..{}", tools::format_size(segments.front()),
                     tools::format_size(segments.back()));
}

std::string list_or_none(const std::vector<std::string>& values) {
  return values.empty() ? std::string("(unknown)") : fmt::format("{}", fmt::join(values, ", "));
}

json number_or_null(double v) { return std::isnan(v) ? json(nullptr) : json(v); }

// CSV cell for a double: empty when NaN; shortest text that reads back to the same value.
std::string csv_number(double v) { return std::isnan(v) ? std::string() : fmt::format("{}", v); }

// RFC 4180: quote a cell only when it holds a separator, a quote or a line break.
std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string text_header(const Report& r) {
  std::string out = fmt::format("collsel report: run {}\n", r.run_id);
  out += fmt::format("  directory: {}\n", r.dir);
  out += fmt::format("  ranks:     {} ({} rank files) on {} host(s): {}\n", r.world_size,
                     r.rank_files, r.hosts.size(), list_or_none(r.hosts));
  out += fmt::format("  model:     {}\n", list_or_none(r.models));
  out += fmt::format("  config:    {}\n", list_or_none(r.configs));
  out += fmt::format("  collsel:   {}\n", list_or_none(r.collsel_versions));
  out += fmt::format("  calls:     {} collective calls ({} call records over all ranks)\n",
                     r.calls, r.records);
  return out;
}

std::string text_table(const Report& r) {
  using A = tools::TextTable::Align;
  tools::TextTable table(
      {"coll", "algorithm", "bytes", "P", "calls", "segment", "rung", "actual", "predicted",
       "E_rel", "|E_rel|"},
      {A::left, A::left, A::right, A::right, A::right, A::right, A::left, A::right, A::right,
       A::right, A::right});
  for (const Row& row : r.rows) {
    table.add_row({row.coll, row.algorithm, tools::format_size(row.bytes),
                   std::to_string(row.comm_size), std::to_string(row.calls),
                   segment_cell(row.segment_bytes), fmt::format("{}", fmt::join(row.rungs, ",")),
                   tools::format_duration(row.mean_actual_s),
                   tools::format_duration(row.mean_predicted_s),
                   tools::format_signed_percent(row.mean_rel_error),
                   tools::format_percent(row.mean_abs_rel_error)});
  }
  return table.render("  ");
}

std::string text_footer(const Report& r) {
  std::string out =
      "  actual: mean over calls of the slowest rank's time; predicted: mean model prediction;\n"
      "  E_rel = (predicted - actual) / actual, mean over calls (negative: model optimistic);\n"
      "  |E_rel|: mean of |E_rel|. '-': no prediction (native, or no model).\n";
  if (!r.problems.empty()) {
    out += fmt::format("\nproblems reading the logs ({}):\n", r.problems.size());
    for (const auto& p : r.problems) out += fmt::format("  {}\n", p);
  }
  for (const auto& w : r.warnings) out += fmt::format("\nWARNING: {}\n", w);
  return out;
}

json row_json(const Row& row) {
  return {{"coll", row.coll},
          {"algorithm", row.algorithm},
          {"bytes", row.bytes},
          {"comm_size", row.comm_size},
          {"calls", row.calls},
          {"incomplete_calls", row.incomplete_calls},
          {"segment_bytes", row.segment_bytes},
          {"rungs", row.rungs},
          {"mean_actual_s", row.mean_actual_s},
          {"min_actual_s", row.min_actual_s},
          {"max_actual_s", row.max_actual_s},
          {"predicted_calls", row.predicted_calls},
          {"mean_predicted_s", number_or_null(row.mean_predicted_s)},
          {"mean_rel_error", number_or_null(row.mean_rel_error)},
          {"mean_abs_rel_error", number_or_null(row.mean_abs_rel_error)}};
}

std::string join_semicolon(const std::vector<std::uint64_t>& values) {
  return fmt::format("{}", fmt::join(values, ";"));
}

}  // namespace

std::vector<MergedCall> merge_calls(const std::vector<CallRecord>& records) {
  std::map<std::tuple<std::string, std::string, std::int64_t>, std::vector<const CallRecord*>>
      groups;
  for (const CallRecord& r : records) groups[{r.run, r.comm, r.seq}].push_back(&r);
  std::vector<MergedCall> merged;
  merged.reserve(groups.size());
  for (auto& [key, group] : groups) {
    std::stable_sort(group.begin(), group.end(), [](const CallRecord* a, const CallRecord* b) {
      return a->comm_rank < b->comm_rank;
    });
    merged.push_back(merge_one(group));
  }
  return merged;
}

std::vector<Row> aggregate(const std::vector<MergedCall>& calls) {
  std::map<RowKey, RowSums> sums;  // ordered: rows come out sorted by coll, algorithm, bytes, P
  for (const MergedCall& c : calls) sums[{c.coll, c.algorithm, c.bytes, c.comm_size}].add(c);
  std::vector<Row> rows;
  rows.reserve(sums.size());
  for (const auto& [key, s] : sums) rows.push_back(make_row(key, s));
  return rows;
}

Report build_report(const logs::RunLog& log) {
  Report r;
  fill_run_facts(log, r);
  const std::vector<MergedCall> calls = merge_calls(log.calls);
  r.calls = calls.size();
  r.rows = aggregate(calls);
  count_anomalies(calls, r);
  add_warnings(r);
  return r;
}

std::string format_text(const Report& r) {
  std::string out = text_header(r);
  out += '\n';
  out += r.rows.empty() ? std::string("  (no call records)\n") : text_table(r);
  out += '\n';
  out += text_footer(r);
  return out;
}

std::string format_csv(const Report& r) {
  std::string out =
      "coll,algorithm,bytes,comm_size,calls,incomplete_calls,segment_bytes,rungs,mean_actual_s,"
      "min_actual_s,max_actual_s,predicted_calls,mean_predicted_s,mean_rel_error,"
      "mean_abs_rel_error\n";
  for (const Row& row : r.rows) {
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csv_cell(row.coll),
                       csv_cell(row.algorithm), row.bytes, row.comm_size, row.calls,
                       row.incomplete_calls, join_semicolon(row.segment_bytes),
                       csv_cell(fmt::format("{}", fmt::join(row.rungs, ";"))),
                       csv_number(row.mean_actual_s), csv_number(row.min_actual_s),
                       csv_number(row.max_actual_s), row.predicted_calls,
                       csv_number(row.mean_predicted_s), csv_number(row.mean_rel_error),
                       csv_number(row.mean_abs_rel_error));
  }
  return out;
}

std::string format_json(const Report& r) {
  json rows = json::array();
  for (const Row& row : r.rows) rows.push_back(row_json(row));
  json disagreements = json::array();
  for (const Disagreement& d : r.disagreements) {
    disagreements.push_back({{"comm", d.comm}, {"seq", d.seq}, {"algorithms", d.algorithms}});
  }
  const json doc = {{"run", r.run_id},
                    {"dir", r.dir},
                    {"world_size", r.world_size},
                    {"rank_files", r.rank_files},
                    {"hosts", r.hosts},
                    {"models", r.models},
                    {"configs", r.configs},
                    {"collsel_versions", r.collsel_versions},
                    {"records", r.records},
                    {"calls", r.calls},
                    {"rows", rows},
                    {"disagreeing_calls", r.disagreeing_calls},
                    {"disagreements", disagreements},
                    {"shape_mismatch_calls", r.shape_mismatch_calls},
                    {"incomplete_calls", r.incomplete_calls},
                    {"problems", r.problems},
                    {"warnings", r.warnings}};
  return doc.dump(2) + "\n";
}

std::string format(const Report& r, Format f) {
  switch (f) {
    case Format::csv: return format_csv(r);
    case Format::json: return format_json(r);
    case Format::text: break;
  }
  return format_text(r);
}

}  // namespace collsel::report

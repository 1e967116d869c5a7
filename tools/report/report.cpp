// The report's aggregation: a run's records merged per call and summed per section
// (report.hpp); printing is report_format.cpp.
#include "tools/report/report.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <type_traits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pmpi/size_bucket.hpp"
#include "selector/collective.hpp"
#include "tools/report/call_sites.hpp"
#include "common/duration_format.hpp"
#include "tools/decisions/native_choice.hpp"
#include "common/size_parse.hpp"
#include "common/text_table.hpp"

namespace collsel::report {
namespace {

using logs::CallRecord;
using logs::SummaryRecord;
// Ordered: keys come out in the documented order, which people reading the JSON appreciate.
using json = nlohmann::ordered_json;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Enough examples to find the calls in the log; the count says how many there are in all.
constexpr std::size_t kDisagreementExamples = 5;
// Ranks named in the trace-cap and overflow warnings; the count says how many there are in all.
constexpr std::size_t kRankExamples = 3;
constexpr std::string_view kNative = "native";

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

// The merged trace calls of one row or key.
struct RowSums {
  int calls = 0;
  int incomplete = 0;
  std::uint64_t bytes = 0;
  std::int64_t missing_ranks = 0;  // rank observations absent from incomplete calls
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
    bytes += c.bytes;
    if (c.ranks_present < c.comm_size) {
      ++incomplete;
      missing_ranks += c.comm_size - c.ranks_present;
    }
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

// ---- keys of the run-level sections: trace calls and summary records together ---------------

// (coll, algorithm, bucket, comm_size): the order of the errors section.
using StatsKey = std::tuple<std::string, std::string, Bucket, int>;

// One rank's summary records of one key, added over call sites.
struct RankSums {
  std::int64_t calls = 0;
  std::uint64_t bytes = 0;
  double actual_s = 0.0;
  std::int64_t predicted_calls = 0;
  double predicted_s = 0.0;

  void add(const SummaryRecord& s) {
    *this += {s.calls, s.bytes_sum, s.actual_sum_s, s.predicted_calls, s.predicted_sum_s};
  }
  RankSums& operator+=(const RankSums& o) {
    calls += o.calls;
    bytes += o.bytes;
    actual_s += o.actual_s;
    predicted_calls += o.predicted_calls;
    predicted_s += o.predicted_s;
    return *this;
  }
};

// Per-rank sums of one key, by world rank.
struct SummarySums {
  std::map<int, RankSums> ranks;

  // Every rank's sums added: its counts are rank observations, P per call.
  [[nodiscard]] RankSums pooled() const {
    RankSums all;
    for (const auto& [rank, r] : ranks) all += r;
    return all;
  }
  // The slowest rank's mean time per call: the summary's stand-in for "the slowest rank's time".
  [[nodiscard]] double slowest_mean_s() const {
    double slowest = 0.0;
    for (const auto& [rank, r] : ranks) slowest = std::max(slowest, r.actual_s / r.calls);
    return slowest;
  }
};

// Every call of a P-rank communicator is counted by its P ranks. At least one call when anything
// is left, so that no observed time disappears in the rounding of an incomplete key.
std::int64_t calls_from_observations(std::int64_t observations, int comm_size) {
  if (observations <= 0 || comm_size <= 0) return 0;
  return std::max<std::int64_t>(
      1, std::llround(static_cast<double>(observations) / static_cast<double>(comm_size)));
}

// The calls of one key, traced and summarised, counted once (report.hpp).
struct KeyStats {
  int comm_size = 0;
  RowSums trace;
  SummarySums summary;

  // Summary calls not already counted by a trace call: ranks that reached their trace cap before
  // the others hold, in their summaries, the observations the incomplete trace calls lack.
  [[nodiscard]] std::int64_t summary_calls() const {
    return calls_from_observations(summary.pooled().calls - trace.missing_ranks, comm_size);
  }
  [[nodiscard]] std::int64_t calls() const { return trace.calls + summary_calls(); }
  [[nodiscard]] double time_s() const {
    return trace.actual_sum + static_cast<double>(summary_calls()) * summary.slowest_mean_s();
  }
  [[nodiscard]] std::uint64_t bytes() const {
    const RankSums all = summary.pooled();
    if (all.calls == 0) return trace.bytes;
    const double mean_bytes = static_cast<double>(all.bytes) / static_cast<double>(all.calls);
    return trace.bytes + static_cast<std::uint64_t>(
                             std::llround(static_cast<double>(summary_calls()) * mean_bytes));
  }
};

// Everything the run-level sections are computed from.
struct RunStats {
  std::map<StatsKey, KeyStats> keys;
  // Overflow entries, by collective then world rank: calls of unknown algorithm and size.
  std::map<std::string, std::map<int, RankSums>> overflow;
};

RunStats collect_stats(const std::vector<MergedCall>& calls,
                       const std::vector<SummaryRecord>& summaries) {
  RunStats stats;
  const auto key_stats = [&stats](StatsKey key) -> KeyStats& {
    KeyStats& k = stats.keys[key];
    k.comm_size = std::get<3>(key);
    return k;
  };
  for (const MergedCall& c : calls) {
    key_stats({c.coll, c.algorithm, bucket_of(c.bytes), c.comm_size}).trace.add(c);
  }
  for (const SummaryRecord& s : summaries) {
    if (s.overflow) {
      stats.overflow[s.coll][s.world_rank].add(s);
      continue;
    }
    key_stats({s.coll, s.algorithm, Bucket{s.bytes_lo, s.bytes_hi}, s.comm_size})
        .summary.ranks[s.world_rank]
        .add(s);
  }
  return stats;
}

// ---- totals ----------------------------------------------------------------------------------

std::vector<Total> make_totals(const RunStats& stats, double& total_time_s) {
  std::map<std::pair<std::string, std::string>, Total> by_algorithm;
  for (const auto& [key, k] : stats.keys) {
    Total& t = by_algorithm[{std::get<0>(key), std::get<1>(key)}];
    t.calls += k.calls();
    t.time_s += k.time_s();
    t.bytes += k.bytes();
  }
  // Without a comm size, overflow calls cannot be matched over ranks: the busiest rank stands for
  // the run (report.hpp).
  for (const auto& [coll, ranks] : stats.overflow) {
    Total& t = by_algorithm[{coll, "*"}];
    for (const auto& [rank, r] : ranks) {
      t.calls = std::max(t.calls, r.calls);
      t.time_s = std::max(t.time_s, r.actual_s);
      t.bytes = std::max(t.bytes, r.bytes);
    }
  }
  std::vector<Total> totals;
  total_time_s = 0.0;
  for (auto& [key, t] : by_algorithm) {
    std::tie(t.coll, t.algorithm) = key;
    total_time_s += t.time_s;
    totals.push_back(std::move(t));
  }
  for (Total& t : totals) t.share = total_time_s > 0.0 ? t.time_s / total_time_s : 0.0;
  std::stable_sort(totals.begin(), totals.end(),
                   [](const Total& a, const Total& b) { return a.time_s > b.time_s; });
  return totals;
}

// ---- errors ----------------------------------------------------------------------------------

ErrorRow error_row_base(const StatsKey& key, std::string source) {
  ErrorRow e;
  std::tie(e.coll, e.algorithm, e.bucket, e.comm_size) = key;
  e.source = std::move(source);
  return e;
}

ErrorRow trace_error_row(const StatsKey& key, const RowSums& sums) {
  const Row row = make_row({std::get<0>(key), std::get<1>(key), 0, std::get<3>(key)}, sums);
  ErrorRow e = error_row_base(key, "trace");
  e.calls = row.calls;
  e.predicted_calls = row.predicted_calls;
  e.mean_actual_s = row.mean_actual_s;
  e.mean_predicted_s = row.mean_predicted_s;
  e.mean_rel_error = row.mean_rel_error;
  e.mean_abs_rel_error = row.mean_abs_rel_error;
  return e;
}

ErrorRow summary_error_row(const StatsKey& key, const SummarySums& sums) {
  ErrorRow e = error_row_base(key, "summary");
  const int comm_size = std::get<3>(key);
  const RankSums all = sums.pooled();
  e.calls = calls_from_observations(all.calls, comm_size);
  e.predicted_calls = calls_from_observations(all.predicted_calls, comm_size);
  e.mean_actual_s = sums.slowest_mean_s();
  // All ranks compute the same prediction, so the pooled mean is their common one.
  e.mean_predicted_s = all.predicted_calls > 0
                           ? all.predicted_s / static_cast<double>(all.predicted_calls)
                           : kNaN;
  const bool comparable = e.predicted_calls > 0 && e.mean_actual_s > 0.0;
  e.mean_rel_error =
      comparable ? (e.mean_predicted_s - e.mean_actual_s) / e.mean_actual_s : kNaN;
  e.mean_abs_rel_error = std::fabs(e.mean_rel_error);
  return e;
}

std::vector<ErrorRow> make_errors(const RunStats& stats) {
  std::vector<ErrorRow> errors;
  for (const auto& [key, k] : stats.keys) {  // map order: coll, algorithm, bucket, comm_size
    if (k.trace.calls > 0) errors.push_back(trace_error_row(key, k.trace));
    if (!k.summary.ranks.empty()) errors.push_back(summary_error_row(key, k.summary));
  }
  return errors;
}

// ---- savings ---------------------------------------------------------------------------------

using SavingKey = std::tuple<std::string, int, Bucket>;

// Calls and their total time (each call's time its slowest rank's).
struct CallSums {
  std::int64_t calls = 0;
  double time_s = 0.0;
};

// What collsel ran for one (coll, comm_size, bucket).
struct ServedSums {
  std::int64_t calls = 0;
  double time_s = 0.0;
  std::uint64_t bytes = 0;
  std::map<std::string, CallSums> by_algorithm;
};

// Native calls per (coll, comm_size, bucket) of one run.
std::map<SavingKey, CallSums> native_sums(const RunStats& stats) {
  std::map<SavingKey, CallSums> out;
  for (const auto& [key, k] : stats.keys) {
    if (std::get<1>(key) != kNative) continue;
    CallSums& n = out[{std::get<0>(key), std::get<3>(key), std::get<2>(key)}];
    n.calls += k.calls();
    n.time_s += k.time_s();
  }
  return out;
}

std::string measured_note(std::int64_t here, std::int64_t baseline) {
  if (baseline == 0) return fmt::format("mean of {} native call(s) of this run", here);
  if (here == 0) return fmt::format("mean of {} native call(s) of the baseline run", baseline);
  return fmt::format("mean of {} native call(s) of this run and {} of the baseline run", here,
                     baseline);
}

// The model prices MPICH's stand-in and what ran, under the same model at the calls' mean size;
// the native estimate is the measured time scaled by their ratio (report.hpp: a raw prediction
// against a measurement would count the model's own error as time saved or lost).
void price_with_model(const SavingKey& key, const ServedSums& served,
                      const native::NativeEstimator& estimator, SavingRow& row) {
  const auto known = collective_from_name(std::get<0>(key));
  if (!known || row.comm_size < 1) {  // a log of a newer collsel, or a damaged one
    row.native_note = fmt::format("the model cannot price {} on {} rank(s)", row.coll,
                                  row.comm_size);
    return;
  }
  const Collective coll = *known;
  const auto mean_bytes = static_cast<std::uint64_t>(
      std::llround(static_cast<double>(served.bytes) / static_cast<double>(served.calls)));
  const native::NativeEstimate estimate = estimator.estimate(coll, row.comm_size, mean_bytes);
  row.native_note = estimate.note;
  if (!estimate.predicted_s) return;
  double native_s = 0.0;
  for (const auto& [algorithm, sums] : served.by_algorithm) {
    const native::NativePrice ran = estimator.price(coll, row.comm_size, mean_bytes, algorithm);
    if (!ran.predicted_s || !(*ran.predicted_s > 0.0)) {
      row.native_note += fmt::format(
          "; no estimate: {}", ran.predicted_s ? fmt::format("the model predicts no time for {} "
                                                             "at this size, nothing to scale",
                                                             algorithm)
                                               : ran.why_not);
      return;
    }
    native_s += sums.time_s * (*estimate.predicted_s / *ran.predicted_s);
  }
  row.native_basis = "model:" + estimate.algorithm;
  row.native_s = native_s;
  row.native_note += fmt::format("; the model predicts {} per call for it",
                                 common::format_duration(*estimate.predicted_s));
  if (served.time_s > 0.0) {
    row.native_note += fmt::format(", x{:.3g} the measured time", native_s / served.time_s);
  }
}

SavingRow saving_row(const SavingKey& key, const ServedSums& served, const CallSums& here,
                     const CallSums& baseline, const native::NativeEstimator* estimator) {
  SavingRow row;
  std::tie(row.coll, row.comm_size, row.bucket) = key;
  row.algorithm = std::max_element(served.by_algorithm.begin(), served.by_algorithm.end(),
                                   [](const auto& a, const auto& b) {
                                     return a.second.calls < b.second.calls;
                                   })
                      ->first;
  row.calls = served.calls;
  row.actual_s = served.time_s;
  row.native_s = kNaN;
  const std::int64_t native_calls = here.calls + baseline.calls;
  if (native_calls > 0) {
    row.native_basis = "measured";
    row.native_calls = native_calls;
    row.native_s = (here.time_s + baseline.time_s) / static_cast<double>(native_calls) *
                   static_cast<double>(served.calls);
    row.native_note = measured_note(here.calls, baseline.calls);
  } else if (estimator != nullptr) {
    price_with_model(key, served, *estimator, row);
  } else {
    row.native_note = "no native call measured and no model given";
  }
  if (served.by_algorithm.size() > 1) {
    row.native_note += fmt::format("; {} algorithms ran, {} the most", served.by_algorithm.size(),
                                   row.algorithm);
  }
  row.saved_s = row.native_s - row.actual_s;  // NaN stays NaN: no estimate
  return row;
}

std::vector<SavingRow> make_savings(const RunStats& stats, const RunStats* baseline,
                                    const native::NativeEstimator* estimator,
                                    double& saved_total) {
  std::map<SavingKey, ServedSums> served;
  for (const auto& [key, k] : stats.keys) {
    if (std::get<1>(key) == kNative) continue;
    const std::int64_t calls = k.calls();
    if (calls == 0) continue;
    ServedSums& s = served[{std::get<0>(key), std::get<3>(key), std::get<2>(key)}];
    s.calls += calls;
    s.time_s += k.time_s();
    s.bytes += k.bytes();
    CallSums& by = s.by_algorithm[std::get<1>(key)];
    by.calls += calls;
    by.time_s += k.time_s();
  }
  const auto here = native_sums(stats);
  const auto there = baseline != nullptr ? native_sums(*baseline) : decltype(here){};
  const auto sums_of = [](const std::map<SavingKey, CallSums>& m, const SavingKey& key) {
    const auto it = m.find(key);
    return it == m.end() ? CallSums{} : it->second;
  };
  std::vector<SavingRow> rows;
  saved_total = 0.0;
  for (const auto& [key, s] : served) {  // map order: coll, comm_size, bucket
    rows.push_back(saving_row(key, s, sums_of(here, key), sums_of(there, key), estimator));
    if (!std::isnan(rows.back().saved_s)) saved_total += rows.back().saved_s;
  }
  return rows;
}

// ---- call sites ------------------------------------------------------------------------------

void add_call_sites(const logs::RunLog& log, const Options& options, Report& r) {
  // Without a symbolizer, one that knows no module: every frame is listed by its address.
  tools::Symbolizer addresses_only({});
  tools::Symbolizer& symbolizer =
      options.symbolizer != nullptr ? *options.symbolizer : addresses_only;
  r.call_sites = tools::call_site_rows(log, symbolizer);
  for (const std::string& p : symbolizer.problems()) r.warnings.push_back(p);
  r.call_sites_total = r.call_sites.size();
  if (r.call_sites.size() > options.top_call_sites) r.call_sites.resize(options.top_call_sites);
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
  r.levels = distinct(log.ranks, [](const auto& h) { return h.level; });
  for (const auto& h : log.ranks) {
    r.summarised_calls += h.summarised_calls;
    r.overflow_calls += h.overflow_calls;
  }
  r.records = log.calls.size();
  r.problems = log.problems;
}

// "rank 0 logged 100000 calls then summarised 2500 more; rank 1 ..." for the first few ranks.
template <typename Describe>
std::string rank_examples(const std::vector<const logs::RunHeader*>& ranks, Describe describe) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < ranks.size() && i < kRankExamples; ++i) {
    parts.push_back(describe(*ranks[i]));
  }
  if (ranks.size() > kRankExamples) {
    parts.push_back(fmt::format("and {} more rank(s)", ranks.size() - kRankExamples));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

// The log kept less than every call's own record: say where and what the report did instead.
void add_summary_warnings(const logs::RunLog& log, Report& r) {
  std::vector<const logs::RunHeader*> capped;
  std::vector<const logs::RunHeader*> overflowed;
  for (const auto& h : log.ranks) {
    if (h.level != "summary" && h.summarised_calls > 0) capped.push_back(&h);
    if (h.overflow_calls > 0) overflowed.push_back(&h);
  }
  if (!capped.empty()) {
    r.warnings.push_back(fmt::format(
        "the trace cap was reached: {} (trace cap [log] max_records). The calls past the cap are "
        "in the totals, errors and savings from their summary records (per-rank times), not in "
        "the per-size rows; raise max_records to trace them",
        rank_examples(capped, [](const logs::RunHeader& h) {
          return fmt::format("rank {} logged {} calls then summarised {} more", h.world_rank,
                             h.call_records, h.summarised_calls);
        })));
  }
  if (!overflowed.empty()) {
    r.warnings.push_back(fmt::format(
        "the summary table was full: {}. Those calls lost their algorithm, size and call site: "
        "they are in the totals as algorithm '*' (the busiest rank's count and time) and in no "
        "other section; raise [log] summary_entries",
        rank_examples(overflowed, [](const logs::RunHeader& h) {
          return fmt::format("rank {} counted {} calls in overflow entries", h.world_rank,
                             h.overflow_calls);
        })));
  }
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

Bucket bucket_of(std::uint64_t bytes) {
  const std::uint8_t b = pmpi::size_bucket(bytes);
  return {pmpi::bucket_low(b), pmpi::bucket_high(b)};
}

Report build_report(const logs::RunLog& log, const Options& options) {
  Report r;
  fill_run_facts(log, r);
  std::vector<MergedCall> calls = merge_calls(log.calls);
  r.calls = calls.size();
  r.rows = aggregate(calls);
  count_anomalies(calls, r);
  add_warnings(r);
  add_summary_warnings(log, r);

  const RunStats stats = collect_stats(calls, log.summaries);
  r.totals = make_totals(stats, r.total_time_s);
  r.errors = make_errors(stats);
  std::optional<RunStats> baseline;
  if (options.baseline != nullptr) {
    baseline = collect_stats(merge_calls(options.baseline->calls), options.baseline->summaries);
    r.baseline = fmt::format("{} ({})", options.baseline->run_id, options.baseline->dir);
  }
  if (options.estimator != nullptr) r.estimate_model = options.estimator->source();
  r.savings = make_savings(stats, baseline ? &*baseline : nullptr, options.estimator,
                           r.saved_s_total);
  add_call_sites(log, options, r);
  r.merged = std::move(calls);
  return r;
}

}  // namespace collsel::report

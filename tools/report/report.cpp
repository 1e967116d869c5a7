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
#include "tools/report/run_stats.hpp"
#include "common/size_parse.hpp"
#include "common/text_table.hpp"

namespace collsel::report {
namespace {

using namespace detail;

using logs::LoggedCall;
using logs::SummaryRecord;
// Ordered: keys come out in the documented order, which people reading the JSON appreciate.
using json = nlohmann::ordered_json;

// Enough examples to find the calls in the log; the count says how many there are in all.
constexpr std::size_t kDisagreementExamples = 5;
// Ranks named in the trace-cap and overflow warnings; the count says how many there are in all.
constexpr std::size_t kRankExamples = 3;
constexpr std::string_view kNative = "native";

// ---- merging one call's records --------------------------------------------------------------

std::string choice_label(const LoggedCall& r) {
  return r.segment_bytes == 0 ? r.algorithm : fmt::format("{}/{}B", r.algorithm, r.segment_bytes);
}

bool same_shape(const LoggedCall& a, const LoggedCall& b) {
  return a.coll == b.coll && a.bytes == b.bytes && a.root == b.root && a.comm_size == b.comm_size;
}

// `records` all belong to one (run, comm, seq), sorted by comm_rank.
MergedCall merge_one(const std::vector<const LoggedCall*>& records) {
  const LoggedCall& ref = *records.front();  // lowest comm_rank: its decision is the call's
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
  m.window = ref.window;
  m.rung = ref.rung;
  m.predicted_s = ref.predicted_s;
  m.simulated = ref.simulated;
  m.actual_s = ref.actual_s;
  std::set<int> ranks;
  std::set<std::string> choices;
  for (const LoggedCall* r : records) {
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
  r.traces_per_site = distinct(log.ranks, [](const auto& h) {
    return h.level == "summary" ? std::string() : std::to_string(h.traces_per_site);
  });
  std::erase(r.traces_per_site, std::string());
  for (const auto& h : log.ranks) {
    r.summarised_calls += h.summarised_calls;
    r.overflow_calls += h.overflow_calls;
    r.sampled_calls += h.sampled_calls;
    r.endings.push_back({h.world_rank, h.host, h.ending.empty() ? std::string("cut") : h.ending,
                         h.ending_code, logs::describe_ending(h), h.call_records,
                         h.unwritten_calls, h.summarised_calls, h.summaries_recovered});
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

// One warning naming the first few of `ranks` (none when empty): `sentence` with "{}" where the
// examples go.
template <typename Describe>
void warn_about(Report& r, const std::vector<const logs::RunHeader*>& ranks,
                std::string_view sentence, Describe describe) {
  if (ranks.empty()) return;
  r.warnings.push_back(fmt::format(fmt::runtime(sentence), rank_examples(ranks, describe)));
}

// The log kept less than every call's own record: say where and what the report did instead.
void add_summary_warnings(const logs::RunLog& log, Report& r) {
  std::vector<const logs::RunHeader*> capped;
  std::vector<const logs::RunHeader*> overflowed;
  // Summarised for being past traces_per_site is the sampling the run asked for (the header says
  // so); the rest of a trace rank's summarised calls hit a cap.
  const auto capped_calls = [](const logs::RunHeader& h) {
    return h.summarised_calls - h.sampled_calls;
  };
  std::vector<const logs::RunHeader*> recovered;
  for (const auto& h : log.ranks) {
    if (h.level != "summary" && capped_calls(h) > 0) capped.push_back(&h);
    if (h.overflow_calls > 0) overflowed.push_back(&h);
    if (h.summaries_recovered) recovered.push_back(&h);
  }
  warn_about(r, capped,
             "the trace cap was reached: {} (trace caps [log] max_records and 3/4 of max_bytes). "
             "The calls past the cap are in the totals, errors and savings from their summary "
             "records (per-rank times), not in the per-size rows; raise max_records or max_bytes "
             "to trace them",
             [&capped_calls](const logs::RunHeader& h) {
               return fmt::format("rank {} logged {} calls then summarised {} more",
                                  h.world_rank, h.call_records, capped_calls(h));
             });
  warn_about(r, overflowed,
             "the summary table was full: {}. Those calls lost their algorithm, size and call "
             "site: they are in the totals as algorithm '*' (the busiest rank's count and time) "
             "and in no other section; raise [log] summary_entries",
             [](const logs::RunHeader& h) {
               return fmt::format("rank {} counted {} calls in overflow entries", h.world_rank,
                                  h.overflow_calls);
             });
  warn_about(r, recovered,
             "rank(s) died before writing their summary records: {}. The tables (the shim's "
             "rank-NNNNN.summary files) count every call their rank completed but at most the "
             "one being counted when it was killed",
             [](const logs::RunHeader& h) {
               return fmt::format("summaries recovered from rank {}'s table ({} calls)",
                                  h.world_rank, h.summarised_calls);
             });
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

std::vector<MergedCall> merge_calls(const std::vector<LoggedCall>& records) {
  std::map<std::tuple<std::string, std::string, std::int64_t>, std::vector<const LoggedCall*>>
      groups;
  for (const LoggedCall& r : records) groups[{r.run, r.comm, r.seq}].push_back(&r);
  std::vector<MergedCall> merged;
  merged.reserve(groups.size());
  for (auto& [key, group] : groups) {
    std::stable_sort(group.begin(), group.end(), [](const LoggedCall* a, const LoggedCall* b) {
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
  if (options.estimator != nullptr) {
    r.estimate_model = options.estimator->source();
    const native::NativeRules& rules = options.estimator->rules();
    r.estimate_rules = std::string(native::rules_title(rules.library));
    if (!rules.why.empty()) r.estimate_rules += ": " + rules.why;
    r.estimate_limits = native::rules_limits(rules.library);
  }
  make_savings(stats, baseline ? &*baseline : nullptr, options.estimator, r);
  make_coverage(log, r);
  add_call_sites(log, options, r);
  r.merged = std::move(calls);
  return r;
}

}  // namespace collsel::report

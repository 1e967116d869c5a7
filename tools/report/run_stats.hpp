// What the report's sections are computed from, shared by report.cpp (rows, totals, errors) and
// savings.cpp: the merged trace calls of one row, and the run-level statistics per (collective,
// algorithm, size bucket, P), trace calls and summary records counted once (report.hpp).
// Internal to tools/report.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "tools/report/report.hpp"

namespace collsel::report::detail {

using logs::SummaryRecord;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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

inline Row make_row(const RowKey& key, const RowSums& s) {
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
inline std::int64_t calls_from_observations(std::int64_t observations, int comm_size) {
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

inline RunStats collect_stats(const std::vector<MergedCall>& calls,
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


// The measured savings and, for the shapes with no native call measured, the model's estimates
// (savings.cpp); also their totals and the headline's basis.
void make_savings(const RunStats& stats, const RunStats* baseline,
                  const native::NativeEstimator* estimator, Report& r);

// The uncovered collectives and the served share (uncovered.cpp), after the totals.
void make_coverage(const logs::RunLog& log, Report& r);

}  // namespace collsel::report::detail

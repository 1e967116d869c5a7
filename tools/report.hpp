// `collsel report`: how well the model predicted what happened, from one run's logs.
//
// Aggregation, in two steps:
//  1. Merge: the records of one call on all ranks share (run, comm, seq). The call's actual time is
//     the MAXIMUM actual_s over its ranks (the collective ends when its last rank does, which is
//     what the models predict); its algorithm, parameters and prediction are those of the rank
//     with the lowest comm_rank (all ranks compute the same decision; a difference is flagged).
//  2. Group merged calls by (coll, algorithm, bytes, comm_size). comm_size is part of the key
//     because a prediction for P = 4 and one for P = 16 are different predictions; averaging them
//     would hide exactly the errors the report is for.
//
// Error measure (Vienne et al., Cluster 2008, section VII; seed 002): per call
//     E_rel = (predicted - actual) / actual
// negative when the model is optimistic (it predicted less time than the call took). A row
// reports mean E_rel (bias) and mean |E_rel| (their E_abs: accuracy without compensation between
// over- and under-estimates). Calls with no prediction (native, or no model) or with actual <= 0
// are left out of both; `predicted_calls` says how many were used.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/log_reader.hpp"
#include "tools/symbolize.hpp"

namespace collsel::report {

// One collective call, merged over the ranks that logged it.
struct MergedCall {
  std::string run;
  std::string comm;
  std::int64_t seq = 0;
  std::string coll;
  std::uint64_t bytes = 0;
  int root = 0;
  int comm_size = 0;
  std::string algorithm;
  std::uint64_t segment_bytes = 0;
  std::string rung;
  std::optional<double> predicted_s;
  double actual_s = 0.0;           // max over the ranks present
  int ranks_present = 0;           // distinct comm_ranks with a record
  bool ranks_disagree = false;     // some rank logged another algorithm or segment size
  std::vector<std::string> algorithms_seen;  // distinct "name" or "name/segment" when they disagree
  bool shape_mismatch = false;     // some rank logged another coll, bytes, root or comm_size
  int duplicate_records = 0;       // extra records for a comm_rank already seen
};

struct Row {
  std::string coll;
  std::string algorithm;
  std::uint64_t bytes = 0;
  int comm_size = 0;
  int calls = 0;
  int incomplete_calls = 0;             // calls missing some ranks (actual time is a lower bound)
  std::vector<std::uint64_t> segment_bytes;  // distinct values, ascending
  std::vector<std::string> rungs;            // distinct values, sorted
  double mean_actual_s = 0.0;
  double min_actual_s = 0.0;
  double max_actual_s = 0.0;
  int predicted_calls = 0;       // calls with a prediction and actual > 0 (used for the errors)
  double mean_predicted_s = 0.0; // NaN when predicted_calls == 0
  double mean_rel_error = 0.0;   // mean E_rel; NaN when predicted_calls == 0
  double mean_abs_rel_error = 0.0;  // mean |E_rel|; NaN when predicted_calls == 0
};

// Size buckets of the new sections: [2^k, 2^(k+1) - 1], with 0 alone (as the summary records).
struct Bucket {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
};

// Totals per collective and algorithm, over trace calls and summary records alike. A trace call
// counts its merged time (max over ranks); a summary key counts the largest per-rank sum.
struct Total {
  std::string coll;
  std::string algorithm;
  std::int64_t calls = 0;
  double time_s = 0.0;
  std::uint64_t bytes = 0;   // sum of the calls' bytes
  double share = 0.0;        // of all collective time in the run, 0..1
};

// One call site (its innermost user frame and callers), ranked by the time spent there summed over
// every rank that called from it (mpiP's aggregate time).
struct CallSiteRow {
  std::string site;                 // frames.front().text(), or "(no call site)" when not captured
  std::vector<tools::Frame> frames; // innermost first, as resolved for the lowest rank seen
  std::string coll;
  std::int64_t calls = 0;           // calls summed over ranks
  double time_s = 0.0;              // rank-seconds
  double mean_s = 0.0, min_s = 0.0, max_s = 0.0;  // per call, per rank
  std::vector<std::string> algorithms;  // distinct, sorted
  int ranks = 0;                        // ranks that called from here
};

// Predicted against actual, per algorithm and size bucket (and comm size: a prediction for P = 4
// and one for P = 16 are different predictions).
struct ErrorRow {
  std::string coll;
  std::string algorithm;
  Bucket bucket;
  int comm_size = 0;
  std::int64_t calls = 0;
  std::int64_t predicted_calls = 0;
  double mean_actual_s = 0.0;
  double mean_predicted_s = 0.0;     // NaN when predicted_calls == 0
  double mean_rel_error = 0.0;       // NaN when predicted_calls == 0
  double mean_abs_rel_error = 0.0;   // NaN when predicted_calls == 0
  std::string source;                // "trace" (merged calls) or "summary" (per-rank aggregates)
};

// Time saved (positive) or lost against the native collective for what ran, per collective,
// comm size and size bucket.
struct SavingRow {
  std::string coll;
  int comm_size = 0;
  Bucket bucket;
  std::string algorithm;        // what collsel ran (most calls, when several)
  std::int64_t calls = 0;
  double actual_s = 0.0;        // total over the calls
  double native_s = 0.0;        // estimated total of the native collective; NaN: no estimate
  double saved_s = 0.0;         // native_s - actual_s; NaN: no estimate
  // "measured": native calls of the same shape in this run (or the --baseline run);
  // "model:NAME": the model's prediction for NAME, the registered algorithm closest to what the
  // MPI library's own selection runs for this shape; "": no estimate (why in `native_note`).
  std::string native_basis;
  std::string native_note;
};

struct Disagreement {
  std::string comm;
  std::int64_t seq = 0;
  std::vector<std::string> algorithms;
};

struct Report {
  std::string run_id;
  std::string dir;
  int world_size = 0;  // from the run records
  int rank_files = 0;  // rank files with a valid run record
  std::vector<std::string> hosts;            // distinct, sorted
  std::vector<std::string> models;           // distinct, sorted (normally one)
  std::vector<std::string> configs;          // distinct, sorted
  std::vector<std::string> collsel_versions; // distinct, sorted
  std::size_t records = 0;                   // call records read
  std::size_t calls = 0;                     // merged calls
  std::vector<Row> rows;                     // sorted by coll, algorithm, bytes, comm_size
  int disagreeing_calls = 0;                 // must be 0: ranks chose different algorithms
  std::vector<Disagreement> disagreements;   // the first few, for the message
  int shape_mismatch_calls = 0;
  int incomplete_calls = 0;
  std::vector<std::string> problems;  // from the reader
  std::vector<std::string> warnings;  // from the aggregation, one sentence each

  std::vector<Total> totals;            // sorted by time, largest first
  std::vector<CallSiteRow> call_sites;  // sorted by time, largest first
  std::vector<ErrorRow> errors;         // sorted by coll, algorithm, bucket, comm_size
  std::vector<SavingRow> savings;       // sorted by coll, comm_size, bucket
  double saved_s_total = 0.0;           // over the rows with an estimate
  std::vector<MergedCall> merged;       // every merged trace call (the plots' scatter)
};

std::vector<MergedCall> merge_calls(const std::vector<logs::CallRecord>& records);
std::vector<Row> aggregate(const std::vector<MergedCall>& calls);
Report build_report(const logs::RunLog& log);

enum class Format { text, csv, json };

std::string format_text(const Report& report);
std::string format_csv(const Report& report);
std::string format_json(const Report& report);  // one JSON document, keys as in the structs
std::string format(const Report& report, Format f);

}  // namespace collsel::report

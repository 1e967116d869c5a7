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
#include <string_view>
#include <vector>

#include "tools/logs/log_reader.hpp"
#include "tools/logs/symbolize.hpp"

// tools/native_choice.hpp: only a pointer travels through Options, so users of the report need
// not see the selector.
namespace collsel::native {
class NativeEstimator;
}

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
  int window = 0;                  // alltoall.windowed's exchanges in flight
  std::string rung;
  std::optional<double> predicted_s;
  bool simulated = false;          // the prediction came from schedule simulation
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

// ---- the run-level sections: totals, call sites, errors, savings --------------------------------
//
// These read both kinds of timing record: `call` records (level trace, merged over ranks as above)
// and `summary` records (level summary, and in level trace the calls past [log] traces_per_site of
// their call site and shape, or after a rank reached its trace cap, [log] max_records or 3/4 of
// max_bytes). The two are combined per key (coll, algorithm, comm_size, size bucket):
//
//  - A trace call counts once, with its merged time (the slowest rank's).
//  - Summary records carry per-rank sums only, and their call sites are per-rank addresses (ASLR),
//    so they are combined over ranks by the key without the site. For one key: the calls are the
//    per-rank calls summed over ranks divided by comm_size (every call of a P-rank communicator is
//    counted by its P ranks), and the time per call is the slowest rank's mean, max over ranks of
//    actual_sum_s / calls. With one communicator per key (MPI_COMM_WORLD) that time is the largest
//    per-rank actual_sum_s; it is a lower bound of the trace definition when the slowest rank
//    changes from call to call, and an over-estimate when disjoint communicators of the same size
//    and key run at different speeds.
//  - No double counting when ranks reach their trace cap at different calls (ranks of several
//    communicators log more calls, so they reach it earlier): such a call has `call` records from
//    the ranks still tracing and a summary entry on the others. It counts once, from its trace
//    records; the summary observations that fill those trace calls' missing ranks are taken off
//    before the summary calls are counted.
//  - Overflow entries (the summary table was full) know neither algorithm, size nor comm size:
//    they appear in the totals only, as algorithm "*", with the largest per-rank count and time.

// Size buckets of the new sections: [2^k, 2^(k+1) - 1], with 0 alone (as the summary records).
struct Bucket {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;

  friend auto operator<=>(const Bucket&, const Bucket&) = default;
};

// The bucket holding `bytes`, the same as the shim's summary table uses.
Bucket bucket_of(std::uint64_t bytes);

// Table cells shared by the text and HTML reports: "0 B", "[1 KiB, 2 KiB)" (half-open, up to
// "16 EiB" for the top bucket); segment sizes "-", "8 KiB" or "1 KiB..8 KiB" (distinct, ascending).
std::string bucket_cell(const Bucket& b);
std::string segment_cell(const std::vector<std::uint64_t>& segments);

// Totals per collective and algorithm, over trace calls and summary records alike, without double
// counting (see above). Sorted by time, largest first.
struct Total {
  std::string coll;
  std::string algorithm;
  std::int64_t calls = 0;
  double time_s = 0.0;       // sum over calls of the call's time (slowest rank)
  std::uint64_t bytes = 0;   // sum of the calls' bytes
  double share = 0.0;        // of all collective time in the run (the sum of every total), 0..1
};

// One call site (its innermost user frame and callers), ranked by the time spent there summed over
// every rank that called from it (mpiP's aggregate time). Built by tools/call_sites.hpp.
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
// and one for P = 16 are different predictions). One row per key and source:
//  - "trace": merged calls, as the rows above: mean over calls of E_rel = (pred - actual) / actual
//    and of |E_rel|, each call's actual being its slowest rank's time.
//  - "summary": per-rank aggregates. The actual time is the slowest rank's mean per call, the
//    prediction the mean over the predicted calls; E_rel is the error of those two means and
//    |E_rel| its absolute value, not a mean over calls (the summary keeps no per-call times), so
//    over- and under-estimates within the key cancel out before the absolute value is taken.
//    calls and predicted_calls are the per-rank counts summed over ranks divided by comm_size.
// Sorted by coll, algorithm, bucket, comm_size, source.
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

// Time saved (positive) or lost against the native collective, MEASURED: per collective, comm
// size and size bucket, over the calls collsel served (algorithm not "native"), the native time is
// the mean time of the native calls of the same coll, comm size and bucket in this run and in the
// --baseline run (pooled), times the calls. A shape with no native call measured has a row with
// no native time (NaN) and the reason in `native_note`; the model's guess for it, if any, is an
// EstimateRow, never a SavingRow. A bucket spans a factor of two in size: the measured basis is
// exact when both sides made the same calls, which is the case for a baseline run of the same
// program (scripts/demo.sh makes one). Sorted by coll, comm_size, bucket.
//
// What collsel served of one (collective, comm size, size bucket): the key of both sections.
struct ServedShape {
  std::string coll;
  int comm_size = 0;
  Bucket bucket;
  std::string algorithm;        // what collsel ran (most calls, when several)
  std::int64_t calls = 0;
  double actual_s = 0.0;        // measured total over the calls
};

struct SavingRow : ServedShape {
  double native_s = 0.0;        // measured native mean x calls; NaN: no native call measured
  double saved_s = 0.0;         // native_s - actual_s; NaN: no native call measured
  std::int64_t native_calls = 0;  // the native calls measured (this run and the baseline)
  // "measured" (native calls of the same shape in this run or the --baseline run), or "": not
  // measured (why in `native_note`).
  std::string native_basis;
  std::string native_note;
};

// A MODEL ESTIMATE, not a measurement, of the native collective's time for a served shape that
// has no measured native call (no SavingRow measurement): the measured time of collsel's calls
// multiplied by the ratio of two model predictions at the calls' mean size (decide()'s cost table,
// closed forms): the prediction for the registered algorithm closest to the library's own choice
// (tools/decisions/native_choice.hpp) over the prediction for what ran (per algorithm when several
// ran). Scaling the measurement, rather than comparing it with a raw prediction, keeps the model's
// overall error out of the estimate: a model 10x optimistic everywhere still ranks the algorithms,
// and when collsel ran the library's own choice the estimate is 0 saved. No estimate (NaN, why in
// `note`) when that choice has no registered equivalent or the model cannot price it, or
// predicts no time for what ran (as at 0 bytes: nothing to scale). Sorted as the savings.
struct EstimateRow : ServedShape {
  std::uint64_t mean_bytes = 0;   // the size both predictions are made at
  std::string native_algorithm;   // the model's stand-in for the library's choice; empty: none
  double native_predicted_s = 0.0;  // the model's prediction per call for it; NaN: none
  double ran_predicted_s = 0.0;   // ... for what ran (one algorithm ran); NaN: several or none
  double ratio = 0.0;             // estimated native total / measured total; NaN: no estimate
  double native_s = 0.0;          // actual_s x ratio; NaN: no estimate
  double saved_s = 0.0;           // native_s - actual_s; NaN: no estimate
  std::string how;                // the multiplication in words, or why there is no estimate
};

// What collsel did not see (issue 17): one row per collective function collsel does not serve
// (pmpi/uncovered.cpp counts them on each rank), from the ranks' `uncovered` records. A rank knows
// only its own sums, so calls and time are the largest per-rank count and time, as for the
// summary's overflow entries: with one communicator per function, its slowest rank's time.
// Sorted by time, largest first.
struct UncoveredRow {
  std::string function;  // "MPI_Allreduce", ...
  // "whole": the calls' time; "initiation": a non-blocking or persistent call's start only (its
  // completion is in MPI_Wait/MPI_Test or MPI_Start, which are not counted)
  std::string timing;
  std::int64_t calls = 0;
  double time_s = 0.0;
  int ranks = 0;  // ranks that called it
  // Empty: a collective collsel does not serve. "before_serving": Bcast, Scatter or Alltoall on
  // communicators before their [runtime] serve_from_call-th call, run by the MPI library.
  std::string reason;
};
// What an UncoveredRow's time covers, in words: the text and HTML reports' "timing" column.
std::string_view uncovered_timing(const UncoveredRow& u);

// The share of the measured collective time collsel served: its algorithms' time (the totals) over
// that plus the intercepted calls left to the MPI library plus the "whole" uncovered time. The
// initiation times of non-blocking and persistent calls are shown but not in the share (their
// completion is not measured).
struct Coverage {
  bool counted = false;        // every rank's shim counted the uncovered calls (the `end` record)
  double served_s = 0.0;       // totals of the registered algorithms
  double native_s = 0.0;       // totals of "native" (and "*": overflow entries, algorithm unknown)
  // Of native_s: the calls before a communicator's [runtime] serve_from_call-th call (counted by
  // the shim, not traced; their largest per-rank time)
  double before_serving_s = 0.0;
  double uncovered_s = 0.0;    // the "whole" uncovered rows
  double initiation_s = 0.0;   // the "initiation" rows, not in the share
  double served_share = 0.0;   // NaN when not counted or no time was seen
};

struct Disagreement {
  std::string comm;
  std::int64_t seq = 0;
  std::vector<std::string> algorithms;
};

// How one rank's process ended, from its `end` record (or its absence): docs/LOGS.md.
struct RankEnding {
  int world_rank = 0;
  std::string host;
  std::string ending;  // "finalize", "exit", "abort", "signal"; "cut": no end record (SIGKILL)
  int code = 0;        // MPI_Abort's errorcode or the signal number
  std::string how;     // in words: "MPI_Abort (code 3)", "signal 11 (SIGSEGV)", ...
  std::int64_t call_records = 0;
  std::int64_t unwritten_calls = 0;  // counted but in no record (the summary table at a signal)
  std::int64_t summarised_calls = 0;  // in its summary records, or its recovered summary table
  bool summaries_recovered = false;   // from the rank's summary table file (it died before
                                      // writing its summary records)
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

  std::vector<std::string> levels;      // distinct log levels of the ranks ("trace", "summary")
  std::int64_t summarised_calls = 0;    // per-rank calls in summary records, summed over ranks
  std::int64_t overflow_calls = 0;      // of those, in overflow entries
  // [log] traces_per_site of the ranks' run records, distinct ("0": no limit); sampled_calls:
  // per-rank calls summarised past it (in summarised_calls), summed over ranks.
  std::vector<std::string> traces_per_site;
  std::int64_t sampled_calls = 0;
  std::string estimate_model;           // the model of the estimates; empty: none given
  // Whose default choice the estimates price, with its source and why those rules
  // (native::rules_title and NativeRules::why); empty: no estimates.
  std::string estimate_rules;
  std::string estimate_limits;          // what those rules leave out (native::rules_limits)
  // What the savings headline rests on, in words: the measured native calls it compares with,
  // or that none was measured and how to measure them.
  std::string saving_basis;
  std::string baseline;                 // "RUN_ID (DIR)" of --baseline; empty: none

  std::vector<Total> totals;            // sorted by time, largest first
  double total_time_s = 0.0;            // sum of the totals' time: the share's denominator
  std::vector<CallSiteRow> call_sites;  // sorted by time, largest first; the first --top only
  std::size_t call_sites_total = 0;     // call sites before --top kept the first ones
  std::vector<ErrorRow> errors;         // sorted by coll, algorithm, bucket, comm_size
  std::vector<SavingRow> savings;       // measured; sorted by coll, comm_size, bucket
  int measured_saving_rows = 0;         // savings rows with a measured native time
  double saved_measured_s = 0.0;        // over those rows; NaN when there is none (no headline)
  std::vector<EstimateRow> estimates;   // model estimates for the shapes not measured
  double saved_estimated_s = 0.0;       // over the estimates that have one; NaN when none has
  std::vector<MergedCall> merged;       // every merged trace call (the plots' scatter)

  std::vector<UncoveredRow> uncovered;  // the collectives collsel does not serve
  Coverage coverage;
  std::vector<RankEnding> endings;      // one per rank file, by world rank
};

// What the report reads besides the run's own log. Everything is optional.
struct Options {
  // A run of the same program with the native collectives (COLLSEL_DISABLE=all, or
  // COLLSEL_FORCE_*=native): its native calls are measured native times for the savings.
  const logs::RunLog* baseline = nullptr;
  // Prices the MPI library's own choice when no native call was measured (the estimates section, never the
  // savings); nullptr: no model estimates.
  const native::NativeEstimator* estimator = nullptr;
  // Resolves call sites; nullptr: sites are listed by address (objects and offsets unknown).
  tools::Symbolizer* symbolizer = nullptr;
  std::size_t top_call_sites = 10;  // call sites kept, the most time first
};

std::vector<MergedCall> merge_calls(const std::vector<logs::LoggedCall>& records);
std::vector<Row> aggregate(const std::vector<MergedCall>& calls);
Report build_report(const logs::RunLog& log, const Options& options = {});

enum class Format { text, csv, json };

// The table a CSV holds: one per section, each with its own header line, so that any CSV reader
// takes it as is. `rows` (the per-size trace rows) is the default, as before the other sections
// existed.
enum class Section { rows, totals, call_sites, errors, savings, estimates, uncovered, endings };
std::optional<Section> section_from_name(std::string_view name);
std::vector<std::string> section_names();  // in declaration order

std::string format_text(const Report& report);
std::string format_csv(const Report& report, Section section = Section::rows);
std::string format_json(const Report& report);  // one JSON document, keys as in the structs
std::string format(const Report& report, Format f, Section section = Section::rows);

}  // namespace collsel::report

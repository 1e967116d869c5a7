// The log's records (docs/LOGS.md, format version 2; version 1 still read): every record kind's
// fields, their names, types and order, declared once. The shim's writer (pmpi/call_log.cpp) walks
// these lists with a JSON emitter and the reader (tools/logs/log_reader.cpp) with a parser, so
// neither spells a field name; tests/tools/logs/log_roundtrip_test.cpp writes every kind and reads
// it back, and log_reader_test.cpp reads logs the version 1 writer wrote.
//
// Each list is a function template over the record type: `f(name, member, presence)` for every
// field after the header every record starts with: {"v":2,"type":KIND}, and in version 1
// {"v":1,"type":KIND,"run":ID,"world_rank":N} (origin_fields; in version 2 only the `run` record
// has them, and the reader gives every other record of the file its run record's). The writer
// passes views of its own data and the reader its records; both must have members of these names.
// The member's C++ type is the field's type in the log:
//   std::string / string_view  a JSON string
//   int                        an integer within int's range
//   std::int64_t               an integer
//   std::uint64_t              a non-negative integer
//   double                     a number (the writer writes NaN as null; see optional<double>)
//   std::optional<double>      a number or null
//   bool                       true or false
//   a sequence of uint64       an array of non-negative integers (call-site return addresses)
//   SiteRef<T>                 a call site: in version 1 an array of return addresses, from
//                              version 2 on the id of a `stack` record written earlier in the file
#pragma once

#include <string_view>

namespace collsel::logs::schema {

// The version the shim writes, and the oldest one the reader still reads.
inline constexpr int kVersion = 2;
inline constexpr int kOldestVersion = 1;

// Whether a field must be in a record. An optional field a record lacks reads as the member's
// value before reading, its default, which is always the zero of its type (0, false, null, "", no
// call site) or, for the fields older logs lack, what they meant (`level`, `ending`). From
// version 2 on the writer leaves out every optional field whose value is that zero, so a call
// record carries only what is not a default.
enum class Presence {
  required,
  optional,
  // Required in version 1 (whose writer always wrote it), optional from version 2 on.
  required_in_v1,
};

// True when a field of this presence must be in a record of format `version`.
constexpr bool must_be_present(Presence p, int version) {
  return p == Presence::required || (p == Presence::required_in_v1 && version == 1);
}

// A call-site field (see the table of types above). The writer's member is the id (0: none), the
// reader's the return addresses the id stands for.
template <class T>
struct SiteRef {
  T& value;
};
template <class T>
SiteRef<T> site_ref(T& value) {
  return {value};
}

inline constexpr std::string_view kRun = "run";
inline constexpr std::string_view kCall = "call";
inline constexpr std::string_view kSummary = "summary";
inline constexpr std::string_view kModule = "module";
inline constexpr std::string_view kUncovered = "uncovered";
inline constexpr std::string_view kEnd = "end";
inline constexpr std::string_view kStack = "stack";  // from version 2 on

// Who wrote a record: in version 1 every record starts with these, from version 2 on only the
// `run` record has them.
template <class R, class F>
void origin_fields(R& r, F&& f) {
  f("run", r.run, Presence::required);
  f("world_rank", r.world_rank, Presence::required);
}

// The first line of every rank's file: who wrote it and with what settings.
template <class R, class F>
void run_fields(R& r, F&& f) {
  f("world_size", r.world_size, Presence::required);
  f("host", r.host, Presence::required);
  f("level", r.level, Presence::optional);              // "trace" or "summary"
  f("stack_depth", r.stack_depth, Presence::optional);  // 0: no call sites captured
  f("max_records", r.max_records, Presence::optional);  // the trace cap
  // Calls traced per call site and shape before the rest are summarised; absent or 0: no limit.
  f("traces_per_site", r.traces_per_site, Presence::optional);
  f("max_bytes", r.max_bytes, Presence::optional);      // the file's cap; absent: none
  f("collsel_version", r.collsel_version, Presence::required);
  f("config", r.config, Presence::required);
  f("model", r.model, Presence::required);
  // The MPI the shim was built for (flavour::name(): "mpich", "openmpi", "smpi"): whose default
  // collectives the report prices as the native baseline. Absent in older logs.
  f("mpi", r.mpi, Presence::optional);
}

// One rank's view of one collective call.
template <class R, class F>
void call_fields(R& r, F&& f) {
  f("comm", r.comm, Presence::required);
  f("comm_rank", r.comm_rank, Presence::required);
  f("comm_size", r.comm_size, Presence::required);
  f("seq", r.seq, Presence::required);
  f("coll", r.coll, Presence::required);
  f("bytes", r.bytes, Presence::required);
  f("root", r.root, Presence::required_in_v1);
  f("algorithm", r.algorithm, Presence::required);
  f("segment_bytes", r.segment_bytes, Presence::required_in_v1);  // 0: not segmented
  f("window", r.window, Presence::optional);  // alltoall.windowed's exchanges in flight
  f("rung", r.rung, Presence::required);
  f("predicted_s", r.predicted_s, Presence::required_in_v1);  // null or absent: no model applied
  f("simulated", r.simulated, Presence::optional);      // predicted by schedule simulation
  f("actual_s", r.actual_s, Presence::required);  // the algorithm (or native routine) alone
  // The one-off cost the call paid before its algorithm ran (a new communicator's context, a new
  // shape's decision); 0 on the calls that found both ready. Absent in older logs.
  f("setup_s", r.setup_s, Presence::optional);
  f("start_s", r.start_s, Presence::required);
  f("stack", site_ref(r.stack), Presence::optional);  // the call site; absent: none captured
}

// One rank's aggregate of the calls of one key (call site x collective x algorithm x comm size x
// size bucket), or of a collective's calls that found the table full (overflow).
template <class R, class F>
void summary_fields(R& r, F&& f) {
  f("comm_size", r.comm_size, Presence::required);
  f("coll", r.coll, Presence::required);
  f("algorithm", r.algorithm, Presence::required);  // "*" in an overflow entry
  f("rung", r.rung, Presence::required);
  f("bytes_lo", r.bytes_lo, Presence::required);  // the size bucket, inclusive bounds
  f("bytes_hi", r.bytes_hi, Presence::required);
  f("stack", site_ref(r.stack), Presence::optional);  // absent in an overflow entry
  f("overflow", r.overflow, Presence::optional);
  f("calls", r.calls, Presence::required);
  f("bytes_sum", r.bytes_sum, Presence::required);
  f("actual_sum_s", r.actual_sum_s, Presence::required);
  f("actual_min_s", r.actual_min_s, Presence::required);
  f("actual_max_s", r.actual_max_s, Presence::required);
  f("predicted_calls", r.predicted_calls, Presence::required);
  f("predicted_sum_s", r.predicted_sum_s, Presence::required);
  f("predicted_min_s", r.predicted_min_s, Presence::required_in_v1);  // null: no prediction
  f("predicted_max_s", r.predicted_max_s, Presence::required_in_v1);
}

// A call site (version 2 on), written once per distinct site before the first record that refers
// to it by `id` (ids count from 1 in the order sites are first written).
template <class R, class F>
void stack_fields(R& r, F&& f) {
  f("id", r.id, Presence::required);
  f("pcs", r.pcs, Presence::required);  // return addresses, innermost first
}

// An object loaded in the rank's process, for report-time symbolisation of call sites.
template <class R, class F>
void module_fields(R& r, F&& f) {
  f("path", r.path, Presence::required);
  f("base", r.base, Presence::required);    // load bias: file address = pc - base
  f("start", r.start, Presence::required);  // [start, end): executable segments
  f("end", r.end, Presence::required);
  f("build_id", r.build_id, Presence::optional);  // hex GNU build id; empty: none
}

// A collective function collsel does not serve, counted by its pass-through wrapper
// (pmpi/uncovered.cpp), or the calls of one it serves made before a communicator was served
// (`reason`): this rank's calls and their time. Written at finalize, before `end`, one per
// function and reason with at least one call.
inline constexpr std::string_view kReasonBeforeServing = "before_serving";
template <class R, class F>
void uncovered_fields(R& r, F&& f) {
  f("function", r.function, Presence::required);  // the MPI function, e.g. "MPI_Allreduce"
  // "whole": the time covers the collective; "initiation": a non-blocking or persistent call's
  // start only (its completion is in MPI_Wait/MPI_Test or MPI_Start, not counted)
  f("timing", r.timing, Presence::required);
  f("calls", r.calls, Presence::required);
  f("time_s", r.time_s, Presence::required);
  // Absent: a collective collsel does not serve. kReasonBeforeServing: Bcast, Scatter or Alltoall
  // on a communicator other than MPI_COMM_WORLD before its [runtime] serve_from_call-th call,
  // run by the MPI library and counted, not traced.
  f("reason", r.reason, Presence::optional);
}

// How a rank's process ended, as the `end` record's "ending" names it. A file without an `end`
// record was cut short (SIGKILL, a power loss): no code runs at such an ending.
inline constexpr std::string_view kEndingFinalize = "finalize";  // MPI_Finalize
inline constexpr std::string_view kEndingExit = "exit";          // exit() without MPI_Finalize
inline constexpr std::string_view kEndingAbort = "abort";        // MPI_Abort; code: its errorcode
inline constexpr std::string_view kEndingSignal = "signal";      // a fatal signal; code: its number

// The last line: how many calls the file holds, so a reader can tell a complete file, and how the
// process ended.
template <class R, class F>
void end_fields(R& r, F&& f) {
  f("calls", r.calls, Presence::required);
  f("summarised_calls", r.summarised_calls, Presence::optional);
  f("overflow_calls", r.overflow_calls, Presence::optional);
  // true: the shim counted the collectives it does not serve (the `uncovered` records, none when
  // none was called); false or absent: not counted (an older or a non-MPICH shim)
  f("uncovered_counted", r.uncovered_counted, Presence::optional);
  f("ending", r.ending, Presence::optional);  // absent (older logs): "finalize"
  f("code", r.code, Presence::optional);      // abort's errorcode or the signal number; else 0
  // Calls counted but in no record: the summary table at a signal (formatting it is not
  // async-signal-safe), or summary entries past [log] max_bytes.
  f("unwritten_calls", r.unwritten_calls, Presence::optional);
  // Of summarised_calls, those not traced because of [log] traces_per_site: past it for their call
  // site and shape, or their key found the summary table full (its traces could not be counted).
  // The rest are past max_records or 3/4 of max_bytes. Absent in older logs.
  f("sampled_calls", r.sampled_calls, Presence::optional);
  // An abort collsel itself called (a failure inside a schedule, pmpi/runtime.cpp run_row): the
  // message it printed on stderr, kept here because a launcher killing the job may drop the
  // rank's last output. Absent otherwise, and in older logs.
  f("cause", r.cause, Presence::optional);
}

}  // namespace collsel::logs::schema

// Self-correction (docs/ADAPT.md): a monitor per communicator and call shape compares what the
// calls measure with what the model predicted and, in `explore` mode, tries the model's close
// runners-up a bounded number of times and keeps the measured best.
//
// Pure and deterministic: the monitor never reads a clock. The shim feeds it each call's local
// time; at agreed points (counted in calls of the shape, identical on every rank because
// collectives are called in the same order) it asks for a reduction, and only the reduced value
// (the slowest rank's mean and its error, merge_agreed()) moves its state. Every rank therefore
// walks the same states and runs the same algorithm on every call, whatever the local timings were.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "selector/decide.hpp"
#include "selector/learned.hpp"

namespace collsel {

// exhaustive: the runtime tuners' way (STAR-MPI, Intel's autotuner), for comparison and for
// users who trust no model: every algorithm, a fixed number of calls, then the measured best.
enum class AdaptMode { off, monitor, explore, exhaustive };
std::string_view adapt_mode_name(AdaptMode m);
std::optional<AdaptMode> adapt_mode_from(std::string_view s);

// [adapt] in the config (docs/CONFIG.md). The defaults are the documented production default.
struct AdaptSettings {
  // monitor: measure and remember, never change an algorithm (docs/ADAPT.md says why this is the
  // default); explore: also try the runners-up when the measurement departs from the prediction;
  // exhaustive: at the first checkpoint try every applicable algorithm trial_calls calls, whatever
  // the model predicts, and keep the fastest measured (by more than the hysteresis).
  AdaptMode mode = AdaptMode::monitor;
  // Explore when the model's choice measured slower than its prediction by more than this factor
  // (measured / predicted > threshold). Only this direction: a choice that runs faster than
  // predicted beat runners-up that were predicted slower still, and trying them cost 9 % of 200
  // calls on the simulated gige cluster for nothing (docs/BENCHMARKS.md, "Self-correction").
  // 0 explores every shape once (experiments, tests).
  double threshold = 1.2;
  // Runners-up tried: those predicted within this factor of the model's choice, at most
  // max_candidates of them, trial_calls calls each.
  double candidate_factor = 2.0;
  int max_candidates = 3;
  int trial_calls = 4;
  // A runner-up replaces the incumbent only when it measured this much faster (0.1: 10 %), so
  // noise does not flip the choice. Its trial ends early when the gain is also more than
  // `significance` times the agreed standard error of the difference (clearly faster).
  double hysteresis = 0.10;
  double significance = 2.0;
  // A runner-up that measured faster than the incumbent, but not clearly (the gain is below the
  // hysteresis or within the noise, its own noise could hide a gain above it, and no accepted
  // runner-up measured faster), gets its trial doubled, up to this many calls in all, and is then
  // judged by its mean and the hysteresis: on the emulated cluster 3 timed calls of
  // alltoall.windowed measured 4.8 % faster than all_at_once where 200 measured 17 %.
  int max_trial_calls = 16;
  // A runner-up whose first trial call is slower than this factor times the fastest mean measured
  // so far (the incumbent's, or an accepted runner-up's) is abandoned after that call: the bound
  // on what exploring can cost.
  double abandon_factor = 2.0;
  // Runners-up predicted within this fraction of the model's choice are the model's ties: it
  // cannot tell them apart, so they are tried once, at the first checkpoint, even when the
  // measurement agrees with the prediction (0: never). On the simulated gige cluster the model
  // chose bcast.scatter_allgather (2.88 ms) over chain_segmented (2.97 ms), which measured 2.9x
  // faster; the choice ran faster than predicted, so nothing else would ever have tried it.
  // 0.25 since the two-gap model (2026-11-26): it predicts the direct exchange within 2 % on
  // simulated gige, while all_at_once, predicted 1.22x slower, measured 1.45x faster; at 0.10
  // the 200 calls took +45 % of the best, at 0.25 +2.8 % (docs/BENCHMARKS.md).
  double tie_margin = 0.25;
  // A checkpoint's agreement after the first, outside a trial, is applied this long after it (in
  // calls of the shape: this time over the shape's reference time, 1 to kMaxAgreeLagCalls,
  // before the next checkpoint), so that no rank waits for the others: in a loop of back-to-back
  // calls the root runs ahead of the slowest rank, and an immediate agreement made it give that
  // lead up (111 to 395 ms per agreement on the emulated cluster). 0: applied at once. The first
  // checkpoint's agreement, which judges the model's choice, and a trial's, which decide the very
  // next call, are always immediate.
  double agree_lag_s = 0.25;
  // After its runners-up, the kept algorithm, when segmented, its segment not fixed by the user
  // ([override] segment_bytes), and the model found wrong on the shape (the exploring started
  // from a departure, or the kept algorithm's measured time departs from its own prediction), is
  // tried at 4x and 1/4 of the model's segment, under the same trial rules. A model wrong about
  // the network is wrong about the segment too: on the simulated gige cluster with the gaps / 3,
  // exploring found chain_segmented but kept the wrong model's 1536-byte segments, 1.74 ms a
  // call where 5960-byte ones take 0.87 ms.
  bool try_segments = true;
  // The call of a shape at which the model's choice is first judged (the later checkpoints are the
  // 64th and the 512th): every call before it runs the model's choice, right or wrong, so a wrong
  // model costs these calls before any exploration can start. 3 to 63 (the first call is left
  // out of the measurement, so 3 is the fewest that still gives a standard error). Why not 4,
  // tried as the default in the twentieth session: on the emulated cluster its three calls
  // cleared a departure that the 8th call's seven did not, and the wrong model's Bcasts then paid
  // 4 trial calls, +26 % and +14 % of the best fixed algorithm over 200 calls against -6 % and
  // -2 %; the All-to-All it was for gained nothing measurable (+11.8 % and +7.3 %, against
  // +7.6 % and +9.6 %; docs/BENCHMARKS.md).
  int first_checkpoint = 8;
  // A learned table to start from (empty: none), written by an earlier run's finalize.
  std::string learned_path;
};

// The segments a trial may move a segmented algorithm's `segment` (0: the whole message) to: 4x
// and 1/4 of it, rounded up to a multiple of unit_bytes (0 is taken as 1), kept when they cut
// `bytes` into 2 to kMaxSimulatedMessages segments and differ from `segment`. Largest first.
std::vector<std::uint64_t> segment_variants(std::uint64_t bytes, std::uint64_t segment,
                                            std::uint64_t unit_bytes);

// The longest a checkpoint's agreement is held back, in calls of the shape.
inline constexpr int kMaxAgreeLagCalls = 64;

// Calls of a shape after which the monitor agrees on a measurement: first_checkpoint (the 8th call
// by default), then the 64th and the 512th.
inline constexpr std::array<std::uint64_t, 2> kLaterAdaptCheckpoints = {64, 512};
// first_checkpoint's bounds, for the config and the monitor alike: late enough that its window
// (the first call left out) has two calls for a standard error, and before the 64th call.
inline constexpr int kMinFirstCheckpoint = 3;
inline constexpr int kMaxFirstCheckpoint = static_cast<int>(kLaterAdaptCheckpoints[0]) - 1;
std::array<std::uint64_t, 3> adapt_checkpoints(const AdaptSettings& settings);

// The algorithms a shape's monitor may run, as indices into decide()'s table: the winner first,
// then in explore mode its runners-up (applicable, predicted, within candidate_factor of the
// winner) in ascending prediction, at most max_candidates of them; in exhaustive mode every
// applicable algorithm the model predicts, in ascending prediction. Empty when the decision is not
// a model's (an override, a disabled collective, native): what the user fixed is not second-guessed.
std::vector<int> adapt_ranking(const Decision& d, const AdaptSettings& settings);

// One entry of a monitored shape's ranking: a row of decide()'s table, at the parameters it runs
// with.
struct RankedEntry {
  int table_index = -1;  // into decide()'s table (registry order)
  CostEntry cost;        // its prediction and parameters; a segment variant's at its own segment
  int variant_of = -1;   // a segment variant: the ranking index of the entry whose segment it moves
  // Its repetition interval (predict_interval()) in explore mode; NaN when unknown.
  double interval_s = std::numeric_limits<double>::quiet_NaN();
  bool moved_segment = false;  // runs another segment than the model's (a variant, or learned)
  // Ranked for its repetition interval alone (loop_runner_up()): tried only in a loop of
  // back-to-back calls.
  bool loop_only = false;
  // Its name in the learned table: the algorithm, with a variant's segment (learned.hpp).
  [[nodiscard]] std::string label() const;
};

// What the monitor knows of one ranking entry.
struct MonitorEntry {
  double predicted_s = 0.0;
  int variant_of = -1;  // a segment variant: the ranking index of the entry whose segment it moves
  double interval_s = std::numeric_limits<double>::quiet_NaN();  // NaN: unknown
  bool loop_only = false;  // RankedEntry::loop_only
};

// What a shape's monitor is built from.
struct AdaptPlan {
  std::vector<RankedEntry> ranking;  // empty: the shape is not monitored
  // The ranking index to run first and its reference time: a learned choice and its measured mean.
  std::optional<std::pair<int, double>> start;
  // table_intervals() of the decision, in explore mode (empty otherwise, or when not monitored).
  std::vector<double> table_interval_s;

  [[nodiscard]] std::vector<MonitorEntry> monitor_entries() const;
};

// A loop of back-to-back calls is paid at the repetition interval once its calls overlap, and the
// first call of another algorithm pays its whole latency: an algorithm is ranked for the loop by
// its predicted time for this many calls, latency + (kLoopHorizonCalls - 1) x interval. 64: a
// loop is recognised at the first checkpoint and judged again at the 64th call.
inline constexpr int kLoopHorizonCalls = 64;
// A runner-up ranked for its interval alone is predicted at most this many times the model's
// choice for one call: what its first trial call may cost is bounded by it (docs/ADAPT.md).
inline constexpr double kLoopCandidateFactor = 8.0;

// In explore mode with max_candidates > 0, the algorithm not ranked yet (applicable, predicted
// within kLoopCandidateFactor of the winner, its interval shorter than the winner's by more than
// the hysteresis) whose loop time over kLoopHorizonCalls calls is the shortest, when that beats
// every ranked entry's: a pipeline the model predicts far slower alone can be the fastest in a
// loop (simulated gige, gaps / 3, Bcast 64 KiB: chain_rendezvous 6.0x split_binary's time alone,
// 0.46x its interval). A table index; nothing when none qualifies. `intervals`: one per table
// entry (NaN: unknown).
// `taken`: entries already chosen as loop runners-up, left out.
std::optional<int> loop_runner_up(const Decision& d, const std::vector<int>& ranking,
                                  const std::vector<double>& intervals,
                                  const AdaptSettings& settings,
                                  const std::vector<int>& taken = {});

// A repetition interval `mine` is slower than the incumbent's by more than the tie margin: in a
// loop of back-to-back calls, the monitor does not try that runner-up (ShapeMonitor::
// repeats_slower()). False when either interval is unknown.
[[nodiscard]] bool repeats_slower_than(double mine, double incumbent,
                                       const AdaptSettings& settings);

// The loop runners-up of a plan, in order: loop_runner_up() once, and once more for each ranked
// runner-up that a loop would skip (repeats_slower_than the winner), so that a loop tries as many
// algorithms as a single call would. Simulated gige P = 16, gaps / 3, Bcast 64 KiB: two of the
// three ranked runners-up repeat slower; with one loop runner-up the loop ended on split_binary,
// +79.5 % over the best fixed, with three it found chain_segmented, +24.7 % (learned: +1.0 %).
std::vector<int> loop_runners_up(const Decision& d, const std::vector<int>& ranking,
                                 const std::vector<double>& intervals,
                                 const AdaptSettings& settings);

// adapt_ranking()'s entries, in explore mode with their repetition intervals; with try_segments,
// each segmented one's
// segment_variants() predicted by predict_at_segment() (unless the user fixed the segment); and
// where `learned` (this shape's learned entry, if any) chose an applicable entry, that entry as
// the start (appended when the ranking lacks it). Pure: equal inputs give equal plans on every
// rank.
AdaptPlan plan_adapt(const CallShape& shape, const Decision& d, const AdaptSettings& settings,
                     const ModelSet& models, const Policy& policy,
                     const models::contention::Placement* placement,
                     const LearnedShape* learned);

// What the ranks agree on at a checkpoint: each rank's mean per call over its window, that mean's
// relative standard error (0 below two samples), and the mean time between one call's end and
// the next call's start (-1: unknown), reduced with merge_agreed().
struct AdaptSample {
  double mean_s = 0.0;
  double rel_se = 0.0;
  double gap_s = -1.0;
};

// Two ranks' samples as one: the larger mean with its own relative standard error (the slowest
// rank's mean is what the monitor judges, so its error is the one that judges it), the larger gap.
// Not the largest error of any rank: a rank that waits little (a Bcast's root, a pipeline's first
// ranks) has a small mean with a large relative spread; on simulated gige a loop runner-up's
// window agreed at 4.0 % where the slowest rank's was 0.6 %, and its trial doubled for that. A
// selection by a total order (the mean, then the error) and a maximum: exact, commutative and
// associative, so every rank merges the same P samples to the same result in any order.
AdaptSample merge_agreed(const AdaptSample& a, const AdaptSample& b);

// A shape's calls are back to back when the agreed time between them (the slowest rank's) is at
// most this fraction of the agreed time of a call: the program does little else between them, so
// a pipelined algorithm's calls can overlap (docs/ADAPT.md, "Back-to-back calls").
inline constexpr double kBackToBackGapFraction = 0.25;

// What the monitor wants for the coming call.
struct AdaptStep {
  int candidate = 0;       // index into the ranking given at construction (0: the model's choice)
  bool exploring = false;  // a trial call of a runner-up
};

// The record of one shape, for the learned table and the report.
struct AdaptOutcome {
  int chosen = 0;          // ranking index in use now
  std::uint64_t calls = 0;
  std::uint64_t explore_calls = 0;
  bool explored = false;
  std::vector<double> measured_s;  // per ranking entry: agreed mean per call; NaN: not measured
  std::vector<double> measured_rel_se;  // per ranking entry: its agreed relative standard error
};

class ShapeMonitor {
 public:
  // `predicted_s`: the ranking's predictions, the model's choice first, then its runners-up in
  // ascending prediction (only those the settings allow are kept). `start` is the ranking index to
  // run first (a learned choice) with its reference time (the learned measured mean), or nothing:
  // the model's choice against its prediction.
  // An entry's `variant_of` marks a segment variant: variants are tried only after the other
  // runners-up, and only those of the entry then kept. Its `interval_s`: when the first
  // checkpoint finds the calls back to back, a runner-up whose interval is shorter than the
  // incumbent's by more than the hysteresis is tried like a tie. A `loop_only` entry is tried
  // only then.
  ShapeMonitor(const AdaptSettings& settings, std::vector<MonitorEntry> entries,
               std::optional<std::pair<int, double>> start = std::nullopt);
  // The same from the entries' fields, for tests (empty: none known).
  ShapeMonitor(const AdaptSettings& settings, const std::vector<double>& predicted_s,
               std::optional<std::pair<int, double>> start = std::nullopt,
               const std::vector<int>& variant_of = {}, const std::vector<double>& interval_s = {});

  [[nodiscard]] AdaptStep step() const { return {current_, phase_ == Phase::exploring}; }
  // After the call: its local duration, and the local time since the end of the shape's previous
  // call (negative: none). True when every rank must now reduce local_value() with
  // merge_agreed() and hand the result to agree(): before the next call of this shape, or, after
  // defer(), once apply_due() says so.
  bool record(double local_s, double gap_s = -1.0);
  [[nodiscard]] AdaptSample local_value() const;
  void agree(const AdaptSample& agreed);
  // How many calls of the shape after this one the agreement just asked for may be applied (0:
  // before the next call). Equal on every rank: it depends on the call count and the reference
  // time only.
  [[nodiscard]] int agree_lag() const;
  // The shim took local_value() and started the reduction without waiting: the monitor goes on
  // with the same algorithm and a new window, and apply_due() turns true after `lag` calls.
  void defer(int lag);
  [[nodiscard]] bool apply_due() const { return deferred_ && outcome_.calls >= apply_at_; }

  [[nodiscard]] const AdaptOutcome& outcome() const { return outcome_; }
  [[nodiscard]] int ranking_size() const { return static_cast<int>(entries_.size()); }

 private:
  enum class Phase { monitoring, exploring, settled };
  void reset_window();
  void add_to_window(double local_s, double gap_s);
  // Tries the runners-up: every one, or (ties_only) those within tie_margin of the incumbent.
  void begin_exploring(bool ties_only);
  void next_candidate();
  void finish_exploring();
  // The relative gain of ranking entry `i` over the incumbent and the noise it is judged against.
  [[nodiscard]] double gain_of(int i) const;
  [[nodiscard]] double noise_of(int i) const;
  [[nodiscard]] bool clearly_better(int i) const;
  // An agreed mean (and its relative standard error) is slower than `reference_s` by more than
  // the threshold, beyond its noise.
  [[nodiscard]] bool departs_from(double mean_s, double rel_se, double reference_s) const;
  // The fastest agreed time per call so far: the incumbent's, or an accepted runner-up's.
  [[nodiscard]] double best_known_s() const;
  // Ranking entry i is a segment variant (of `of`, or of any entry when of < 0).
  [[nodiscard]] bool is_variant(int i, int of = -1) const;
  // Ranking entry i (never a variant) is predicted within tie_margin of the incumbent
  // (is_predicted_tie), or, in a loop of back-to-back calls, to repeat faster than it by more
  // than the hysteresis (is_loop_tie).
  [[nodiscard]] bool is_tie(int i) const;
  [[nodiscard]] bool is_predicted_tie(int i) const;
  [[nodiscard]] bool is_loop_tie(int i) const;
  // The runner-up on trial is tried for its repetition interval alone (a loop tie, not a
  // predicted one). Derived: back_to_back_ and the incumbent hold still while exploring.
  [[nodiscard]] bool tried_for_interval() const;
  // In a loop, the trial on hand is of a pipeline whose calls overlap (tried for its interval, or
  // a segment variant): its first call fills the pipeline and is neither agreed on nor timed (no
  // early abandonment), and so is the call after a doubled trial's agreement, which refills it.
  [[nodiscard]] bool refills_after_agreement() const;
  // The trial on hand agrees only at its end, its first call left out: a refilling pipeline's
  // (above), or any in exhaustive mode.
  [[nodiscard]] bool no_first_call_agreement() const;
  // In a loop of back-to-back calls, entry i is predicted to repeat slower than the incumbent by
  // more than tie_margin: not tried, whatever else would try it.
  [[nodiscard]] bool repeats_slower(int i) const;
  [[nodiscard]] bool has_ties() const;
  // The runner-up (not a variant, not the incumbent) with segment variants that measured
  // fastest, and within tie_margin of the incumbent's measured time; -1 when none.
  [[nodiscard]] int closest_segmented_runner_up() const;

  [[nodiscard]] double predicted(int i) const {
    return entries_[static_cast<std::size_t>(i)].predicted_s;
  }
  [[nodiscard]] double interval(int i) const {
    return entries_[static_cast<std::size_t>(i)].interval_s;
  }

  AdaptSettings settings_;
  std::vector<MonitorEntry> entries_;
  bool back_to_back_ = false;  // the last agreement found the calls back to back
  // The segment variants (the kept entry's, and its closest segmented runner-up's) had their
  // trials.
  bool segments_tried_ = false;
  bool model_departed_ = false;  // exploring because the measurement departed from the model
  Phase phase_ = Phase::monitoring;
  int current_ = 0;
  int incumbent_ = 0;
  double reference_s_ = 0.0;  // what the incumbent is held against: prediction or learned time
  std::array<std::uint64_t, 3> checkpoints_;  // adapt_checkpoints(settings_)
  std::size_t next_checkpoint_ = 0;
  // The window since the last agreement: its calls' local sum and count (the first call of a
  // shape and of each trial is left out: it carries one-off costs).
  double window_sum_ = 0.0;
  double window_sum_sq_ = 0.0;
  std::uint64_t window_calls_ = 0;
  double window_gap_sum_ = 0.0;  // over the window's calls whose gap is known
  std::uint64_t window_gaps_ = 0;
  bool skip_next_ = true;
  int trial_call_ = 0;
  int trial_limit_ = 0;  // the current runner-up's trial length: trial_calls, doubled while unclear
  int refill_call_ = 0;  // the trial call right after its doubling agreement (not timed: see above)
  std::vector<int> to_try_;  // ranking indices still to try while exploring
  // Per ranking entry: its trial ended faster than the incumbent clearly (hysteresis and
  // significance), or at max_trial_calls by more than the hysteresis.
  std::vector<bool> accepted_;
  std::size_t next_try_ = 0;
  bool agree_pending_ = false;
  bool deferred_ = false;          // agree_pending_ with its result applied at call apply_at_
  std::uint64_t apply_at_ = 0;
  bool from_learned_ = false;      // started from a learned choice: its ties were measured
  AdaptOutcome outcome_;
};

}  // namespace collsel

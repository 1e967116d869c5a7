// Measures, at one call shape, the native collective, every registered algorithm and collsel's
// automatic choice, interleaved, with every result checked. Shared by the selection benchmark
// (bench/selection.cpp) and the model validation (collsel-calibrate --validate), so both measure
// the same way.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "selector/algo_params.hpp"
#include "selector/collective.hpp"
#include "selector/decide.hpp"

namespace collsel::calibrate {

enum class VariantKind {
  native,     // the MPI library's own collective (PMPI_*)
  library,    // another of the library's routines (flavour natives: SMPI's selectors, algorithms)
  fixed,      // one registered collsel algorithm, forced
  automatic,  // collsel's choice: the shim's call when it is loaded, else decide() run directly
  choice      // decide() with another model set (CompareOptions::choices), run directly
};
// "native", "library", "fixed", "auto", "choice" (the CSV's `kind` column)
std::string_view variant_kind_name(VariantKind kind);

struct VariantResult {
  std::string name;       // "native", a flavour native ("smpi:ompi"), an algorithm, "auto", ...
  VariantKind kind = VariantKind::fixed;
  std::string algorithm;  // what ran: for "auto" and choices, the chosen algorithm (or "native")
  AlgoParams params;
  double predicted_s = 0.0;     // NaN for native routines
  bool simulated = false;       // the prediction came from simulating the schedule
  bool failed = false;          // the routine returned an error on some rank (no samples)
  bool correct = true;          // delivered what was sent (when the point is checked)
  double wall_s = 0.0;          // this process's wall-clock seconds in the variant's calls (the
                                // simulation's cost, under SMPI)
  double warmup_s = 0.0;        // the first call's time (the slowest rank's): for "auto", what the
                                // shim's first call of a shape costs, set-up included
  bool reused = false;   // single_run: the time of the forced variant of the same algorithm and
                         // parameters, not run again
  bool skipped = false;  // max_variant_wall_s: a smaller size of it took too long to simulate
  std::vector<double> samples;  // seconds per call, the slowest rank's; rank 0 only
};

struct PointResult {
  Collective coll = Collective::bcast;
  int comm_size = 1;
  int nodes = 1;            // distinct processor names among the ranks
  std::uint64_t bytes = 0;  // Bcast: the message; Scatter and Alltoall: one block
  int reps = 0;
  bool checked = true;  // false when the payloads are shared memory (flavour::payload_shared)
  // Every variant delivered what was sent (when checked), the flavour's other natives aside:
  // their results are each variant's `correct` (SMPI has algorithms that are wrong when called
  // outside their own selector).
  bool correct = true;
  std::string model_choice;  // decide()'s winner for this shape
  std::vector<VariantResult> variants;
};

// A decision with another model set, measured as its own variant.
struct ExtraChoice {
  std::string name;  // the variant's name, e.g. "auto:default"
  ModelSet models;
  bool placement = true;  // false: decide() without the placement (closed forms only)
};

struct CompareOptions {
  bool native = true;       // include the MPI library's own collective
  // The flavour's other natives to include, by name ("all": every one); none by default.
  std::vector<std::string> natives;
  bool fixed = true;      // include every applicable registered algorithm, forced
  // With `fixed`: only these registered algorithms (by name); empty: all. Where a simulation
  // costs minutes per call (1024 simulated ranks), the few algorithms that matter.
  std::vector<std::string> fixed_only;
  bool automatic = true;  // include collsel's choice (the shim's call when it is loaded)
  std::vector<ExtraChoice> choices;
  bool trace = false;  // rank 0 names every call before it starts (finding a routine that hangs)
  // For a deterministic clock (SMPI): every variant runs once and that call is its time, except
  // collsel's choice through the shim ("auto"), run twice: its first call of a shape also agrees
  // the decision (and, the first of the run, creates the shim's context), and is the warm-up; a choice
  // (auto, auto:default...) that picks the algorithm and parameters of a variant measured before
  // it (a forced one, or another choice) takes that time instead of running again. Repetitions
  // are ignored.
  bool single_run = false;
  // With single_run: a variant whose call took more wall-clock seconds than this (rank 0's
  // reading, shared) is skipped at the larger sizes of this run; 0: never.
  double max_variant_wall_s = 0.0;
  // Where the ranks share one clock (flavour::global_clock: SMPI), each call is timed alone:
  // it starts on every rank at one instant (the latest rank's clock after the barrier plus a
  // lead, reached by a simulated sleep), and every rank stays quiet for a while after its own
  // end before the allreduce that collects the times. A barrier alone lets the ranks out at
  // different instants (SMPI's default one by up to 100 us at P = 64), and the allreduce's first
  // messages, sent by a rank done early while others still receive, delay the call's last
  // messages: both were part of every call's time (docs/BENCHMARKS.md, "Calls timed alone").
  // Ignored with separate clocks (bench/selection refuses it).
  bool isolated = false;
  int min_reps = 3;
  int max_reps = 9;
  double budget_s = 20.0;  // per point: repetitions are cut to fit, never below min_reps
};

// Collective over `comm` (MPI_COMM_WORLD in practice). Owns a private duplicate for the
// algorithms it runs directly, and the ranks' placement on nodes (gathered once), which decide()
// uses as the shim does.
class Comparer {
 public:
  Comparer(MPI_Comm comm, const ModelSet& models, const Policy& policy);
  ~Comparer();
  Comparer(const Comparer&) = delete;
  Comparer& operator=(const Comparer&) = delete;

  // True when libcollsel.so is loaded: "auto" then goes through MPI_Bcast / MPI_Scatter /
  // MPI_Alltoall.
  [[nodiscard]] bool shim_loaded() const;

  // With CompareOptions::isolated: the largest spread of the ranks' starts over the calls so far
  // (seconds, the same on every rank); a clock read or two, more if the lead was short.
  [[nodiscard]] double start_lag_s() const;

  PointResult run(Collective coll, std::uint64_t bytes, const CompareOptions& options);

 private:
  void run_once(Collective coll, std::uint64_t bytes, const CompareOptions& options,
                const std::vector<int>& index, PointResult& out);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The median, quartiles and extremes of samples (linear interpolation between order statistics).
struct Summary {
  double median = 0, p25 = 0, p75 = 0, min = 0, max = 0;
};
Summary summarise(std::vector<double> samples);

}  // namespace collsel::calibrate

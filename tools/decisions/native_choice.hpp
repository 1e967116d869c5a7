// What the MPI library's own collective would have cost: the baseline of the report's "saved"
// column when the run did not measure the native collective itself.
//
// Two steps. native_choice() says which algorithm the MPI library runs by default for a call
// shape and which registered collsel algorithm moves the same messages (its closest stand-in);
// the NativeEstimator then asks the model (the same decide() the shim calls) what that algorithm
// costs.
//
// One table per library, each in its own file with its source cited: MPICH 4.0's default
// selection (native_choice_mpich.hpp) and Open MPI 4.1.4's coll/tuned fixed rules
// (native_choice_openmpi.hpp). Which one prices a run is the MPI its shim was built for, from the
// log's `run` records (common/log_schema.hpp, "mpi"; rules_for_run()).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/diagnostic.hpp"
#include "selector/collective.hpp"
#include "tools/decisions/model_loading.hpp"

namespace collsel::native {

// The libraries whose default choices are encoded.
enum class NativeLibrary { mpich, openmpi };

// "MPICH" / "Open MPI": how the report names the library.
std::string_view library_name(NativeLibrary library);
// The rules and their source, e.g. "Open MPI 4.1.4's coll/tuned fixed rules
// (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c)".
std::string_view rules_title(NativeLibrary library);
// What the rules leave out (node-aware splitting, in-place Alltoall, user tuning), one sentence
// for the report's estimates section.
std::string_view rules_limits(NativeLibrary library);

// Whose rules price a run, and why those: the report says both.
struct NativeRules {
  NativeLibrary library = NativeLibrary::mpich;
  std::string why;  // e.g. "the run's shim was built for Open MPI"
};

// The rules for a run from the `mpi` field of its ranks' `run` records (every distinct value;
// empty strings are logs written before the field existed): "openmpi" -> Open MPI, "mpich" ->
// MPICH; a log that does not say, an SMPI run (its simulated collectives are neither library's
// defaults) or ranks that disagree get MPICH's rules, with the reason in `why`.
NativeRules rules_for_run(const std::vector<std::string>& run_mpis);

struct NativeChoice {
  std::string library_algorithm;         // e.g. "MPIR_Bcast_intra_binomial"
  std::optional<std::string> algorithm;  // the registered stand-in; empty: none exists
  std::optional<int> window;             // alltoall.windowed's k, when that is the stand-in
  std::string note;                      // how close the stand-in is, or why there is none
};

// The library's default choice for an intracommunicator call of this shape (bytes as in the log:
// Bcast the whole buffer, Scatter and Alltoall one block).
NativeChoice native_choice(NativeLibrary library, Collective coll, int comm_size,
                           std::uint64_t bytes);

struct NativeEstimate {
  std::optional<double> predicted_s;  // per call; empty: no estimate (`note` says why)
  std::string algorithm;              // the registered stand-in whose prediction this is
  std::string note;
};

struct NativePrice {
  std::optional<double> predicted_s;  // empty: the model cannot price it (`why_not`)
  std::string why_not;
};

// The model that prices the native choice, loaded once for a report.
class NativeEstimator {
 public:
  // `loaded` as tools::load_models returns it; `source` is what the report header shows
  // ("cluster.toml (the run's model)", "<embedded default model> (...)"); `rules`: whose default
  // choice estimate() prices.
  NativeEstimator(tools::LoadedModels loaded, std::string source, NativeRules rules);

  // The model's prediction for native_choice(rules().library, shape) at `bytes`, closed forms (no placement is
  // known after the run), root 0.
  [[nodiscard]] NativeEstimate estimate(Collective coll, int comm_size, std::uint64_t bytes) const;
  // The same model's prediction for any registered algorithm at that shape (its parameters as
  // the model chooses them; `window` fixes alltoall.windowed's), so the report can compare the
  // stand-in with what ran under one model.
  [[nodiscard]] NativePrice price(Collective coll, int comm_size, std::uint64_t bytes,
                                  std::string_view algorithm,
                                  std::optional<int> window = std::nullopt) const;
  [[nodiscard]] const std::string& source() const { return source_; }
  [[nodiscard]] const NativeRules& rules() const { return rules_; }
  // The calibrated model file priced with; empty: the embedded default model.
  [[nodiscard]] std::optional<std::string> model_path() const;

 private:
  tools::LoadedModels loaded_;
  std::string source_;
  NativeRules rules_;
};

// The model for native estimates, in this order: `model_path` (the user's --model: a file named
// by the user must be usable, so an unusable one is an error, empty result, with diagnostics);
// else the first of `run_models` (the `model` field of the run records) that is a readable file
// and loads (one that does not load is skipped with a note); else the embedded default model.
// `notes` receives one sentence per model passed over, for the report's warnings. `rules`: whose
// default choice the estimator prices (rules_for_run()).
std::optional<NativeEstimator> load_estimator(const std::optional<std::string>& model_path,
                                              const std::vector<std::string>& run_models,
                                              NativeRules rules, Diagnostics& diagnostics,
                                              std::vector<std::string>& notes);

}  // namespace collsel::native

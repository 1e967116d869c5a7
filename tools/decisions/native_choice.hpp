// What the MPI library's own collective would have cost: the baseline of the report's "saved"
// column when the run did not measure the native collective itself.
//
// Two steps. native_choice() says which algorithm MPICH 4.0 runs by default for a call shape and
// which registered collsel algorithm moves the same messages (its closest stand-in); the
// NativeEstimator then asks the model (the same decide() the shim calls) what that algorithm costs.
//
// MPICH 4.0's default selection (src/mpi/coll/coll_selection.json, the tree its `auto` algorithm
// CVARs search; avg_msg_size is count x type size for Bcast and one block, sendcount x type size,
// for Alltoall: src/mpi/coll/src/csel.c, get_avg_msgsize), intracommunicators:
//
//   Bcast     P < 8                     MPIR_Bcast_intra_binomial      -> bcast.binomial
//             P >= 8, bytes <= 12288    MPIR_Bcast_intra_binomial      -> bcast.binomial
//             P >= 8 a power of two,    MPIR_Bcast_intra_scatter_recursive_doubling_allgather
//               bytes <= 524288                                        -> none
//             P >= 8, larger            MPIR_Bcast_intra_scatter_ring_allgather -> none
//   Scatter   any                       MPIR_Scatter_intra_binomial    -> scatter.binomial
//   Alltoall  P >= 8, block <= 256 B    MPIR_Alltoall_intra_brucks     -> alltoall.bruck
//             block <= 32768 B          MPIR_Alltoall_intra_scattered  -> alltoall.windowed, k = 32
//             larger                    MPIR_Alltoall_intra_pairwise   -> alltoall.pairwise
//
// These are the thresholds of MPICH 3's MPIR_CVAR_BCAST_MIN_PROCS = 8,
// MPIR_CVAR_BCAST_SHORT_MSG_SIZE = 12288, MPIR_CVAR_BCAST_LONG_MSG_SIZE = 524288,
// MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE = 256, MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE = 32768, kept as the
// JSON's defaults. "scattered" (src/mpi/coll/alltoall/alltoall_intra_scattered.c) posts
// MPIR_CVAR_ALLTOALL_THROTTLE = 32 exchanges (its own block included), waits for all of them,
// then posts the next 32; alltoall.windowed keeps at most 32 in flight (a sliding window), the
// nearest registered schedule, and the same one up to P = 32, where everything is posted at once.
// The scatter + allgather broadcasts have no registered equivalent, so those shapes get no
// estimate rather than a wrong one.
//
// Limits (the report says them under its savings table): an Alltoall with MPI_IN_PLACE runs
// MPIR_Alltoall_intra_pairwise_sendrecv_replace (the log does not say whether a call was in
// place; the table assumes not); MPICH's ch4 device may first split a communicator spanning
// several nodes into node-level and inter-node parts (its "compositions"), which the table, the
// generic layer those parts call, does not model; MPIR_CVAR_*_INTRA_ALGORITHM or a tuning JSON
// set by the user change the choice.
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

// The thresholds above (src/mpi/coll/coll_selection.json of MPICH 4.0).
inline constexpr int kBcastMinProcs = 8;
inline constexpr std::uint64_t kBcastShortMsgBytes = 12288;
inline constexpr std::uint64_t kBcastLongMsgBytes = 524288;
inline constexpr int kAlltoallMinProcs = 8;
inline constexpr std::uint64_t kAlltoallShortMsgBytes = 256;
inline constexpr std::uint64_t kAlltoallMediumMsgBytes = 32768;
inline constexpr int kAlltoallThrottle = 32;

struct NativeChoice {
  std::string mpich_algorithm;           // e.g. "MPIR_Bcast_intra_binomial"
  std::optional<std::string> algorithm;  // the registered stand-in; empty: none exists
  std::optional<int> window;             // alltoall.windowed's k, when that is the stand-in
  std::string note;                      // how close the stand-in is, or why there is none
};

// MPICH 4.0's default choice for an intracommunicator call of this shape (bytes as in the log:
// Bcast the whole buffer, Scatter and Alltoall one block).
NativeChoice native_choice(Collective coll, int comm_size, std::uint64_t bytes);

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
  // ("cluster.toml (the run's model)", "<embedded default model> (...)").
  NativeEstimator(tools::LoadedModels loaded, std::string source);

  // The model's prediction for native_choice(shape) at `bytes`, closed forms (no placement is
  // known after the run), root 0.
  [[nodiscard]] NativeEstimate estimate(Collective coll, int comm_size, std::uint64_t bytes) const;
  // The same model's prediction for any registered algorithm at that shape (its parameters as
  // the model chooses them; `window` fixes alltoall.windowed's), so the report can compare the
  // stand-in with what ran under one model.
  [[nodiscard]] NativePrice price(Collective coll, int comm_size, std::uint64_t bytes,
                                  std::string_view algorithm,
                                  std::optional<int> window = std::nullopt) const;
  [[nodiscard]] const std::string& source() const { return source_; }
  // The calibrated model file priced with; empty: the embedded default model.
  [[nodiscard]] std::optional<std::string> model_path() const;

 private:
  tools::LoadedModels loaded_;
  std::string source_;
};

// The model for native estimates, in this order: `model_path` (the user's --model: a file named
// by the user must be usable, so an unusable one is an error, empty result, with diagnostics);
// else the first of `run_models` (the `model` field of the run records) that is a readable file
// and loads (one that does not load is skipped with a note); else the embedded default model.
// `notes` receives one sentence per model passed over, for the report's warnings.
std::optional<NativeEstimator> load_estimator(const std::optional<std::string>& model_path,
                                              const std::vector<std::string>& run_models,
                                              Diagnostics& diagnostics,
                                              std::vector<std::string>& notes);

}  // namespace collsel::native

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

enum class VariantKind { native, fixed, automatic };

struct VariantResult {
  std::string name;       // "native", an algorithm name, or "auto"
  VariantKind kind = VariantKind::fixed;
  std::string algorithm;  // what ran: for "auto", the chosen algorithm (or "native")
  AlgoParams params;
  double predicted_s = 0.0;     // NaN for native
  std::vector<double> samples;  // seconds per call, the slowest rank's; rank 0 only
};

struct PointResult {
  Collective coll = Collective::bcast;
  int comm_size = 1;
  std::uint64_t bytes = 0;  // Bcast: the message; Scatter and Alltoall: one block
  int reps = 0;
  bool correct = true;  // every variant delivered what the root sent
  std::string model_choice;  // decide()'s winner for this shape
  std::vector<VariantResult> variants;
};

struct CompareOptions {
  bool native = true;     // include the MPI library's own collective
  bool automatic = true;  // include collsel's choice (the shim's call when it is preloaded)
  int min_reps = 3;
  int max_reps = 9;
  double budget_s = 20.0;  // per point: repetitions are cut to fit, never below min_reps
};

// Collective over `comm` (MPI_COMM_WORLD in practice). Owns a private duplicate for the
// algorithms it runs directly.
class Comparer {
 public:
  Comparer(MPI_Comm comm, const ModelSet& models, const Policy& policy);
  ~Comparer();
  Comparer(const Comparer&) = delete;
  Comparer& operator=(const Comparer&) = delete;

  // True when libcollsel.so is loaded: "auto" then goes through MPI_Bcast / MPI_Scatter /
  // MPI_Alltoall.
  [[nodiscard]] bool shim_loaded() const;

  PointResult run(Collective coll, std::uint64_t bytes, const CompareOptions& options);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The median, quartiles and extremes of samples (linear interpolation between order statistics).
struct Summary {
  double median = 0, p25 = 0, p75 = 0, min = 0, max = 0;
};
Summary summarise(std::vector<double> samples);

}  // namespace collsel::calibrate

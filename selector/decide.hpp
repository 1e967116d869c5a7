// decide(): the pure choice of an algorithm for one call (STYLE.md 8.5 #15-16). It returns the
// whole cost table, the winner and the rung that decided. The shim, `collsel explain` and the
// tests all call this function; none of them needs MPI for it.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/model_file.hpp"
#include "selector/catalog.hpp"

namespace collsel {

// The precedence, highest first. Logged with every call.
enum class Rung { override_algorithm, calibrated_model, default_model, native };
// "override", "model", "default_model", "native"
std::string_view rung_name(Rung r);

struct ModelSet {
  const models::ModelFile* calibrated = nullptr;  // the user's model file, if it loaded
  const models::ModelFile* fallback = nullptr;    // the embedded default model
};

struct CostEntry {
  std::string_view name;
  std::optional<std::string> not_applicable;  // the reason, when the algorithm cannot run
  double predicted_s = 0.0;                   // NaN when no model is available
  AlgoParams params;
};

struct Decision {
  std::vector<CostEntry> table;  // one entry per algorithm, in registry order
  int winner = -1;               // index into table; -1: the native collective
  Rung rung = Rung::native;
  std::string note;              // why, when something was skipped ("override ... n/a: ...")

  [[nodiscard]] std::string_view algorithm() const;  // winner's name or "native"
  [[nodiscard]] double predicted_s() const;          // NaN for native
  [[nodiscard]] AlgoParams params() const;
};

// Rungs: (1) policy.of(coll).force, if it names an applicable algorithm ("native" forces the
// native collective); (2) the calibrated model; (3) the fallback model; (4) native. A disabled
// collective is always native. The table is filled from the best model available on every rung.
// Ties go to the earlier algorithm in `algorithms` (registry order).
Decision decide(const CallShape& shape, std::span<const AlgorithmView> algorithms,
                const ModelSet& models, const Policy& policy);
// Same, over the registry.
Decision decide(const CallShape& shape, const ModelSet& models, const Policy& policy);

}  // namespace collsel

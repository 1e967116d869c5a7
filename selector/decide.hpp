// decide(): the pure choice of an algorithm for one call (STYLE.md 8.5 #15-16). It returns the
// whole cost table, the winner and the rung that decided. The shim, `collsel explain` and the
// tests all call this function; none of them needs MPI for it.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/contention/schedule.hpp"
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
  // True when predicted_s comes from simulating the algorithm's schedule on the communicator's
  // placement (the model file's [contention] section), false for the closed-form model.
  bool simulated = false;
};

// Schedules with more messages than this keep their closed-form prediction: the simulation's cost
// grows with the messages and its steps (measured: about 0.4-0.7 s for 5000 messages under the
// infiniband or gige rule, 0.2 s under fair, 3 s for 20000 under myrinet), and a first decision
// must stay well under a second. 4096 admits an All-to-All of 64 ranks (4032 messages) and every
// unsegmented tree up to thousands of ranks. Depends on the shape only, so every rank makes the
// same choice.
inline constexpr std::size_t kMaxSimulatedMessages = 4096;

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
//
// `placement` (rank -> node of the communicator, equal on all ranks; nullptr: unknown) turns on
// schedule simulation when the model used has a [contention] section whose `use` is `always`, or
// `auto` and some node hosts more than one rank of the call, and the placement places at least
// comm_size ranks (the first comm_size are used). Then every applicable algorithm with a schedule
// is predicted by models::contention::simulate() of its schedule, built with the parameters its
// closed-form model chose (the segment size is not searched again under simulation); algorithms
// without a schedule, schedules longer than kMaxSimulatedMessages and schedules the solver
// rejects keep the closed form. CostEntry::simulated says which.
Decision decide(const CallShape& shape, std::span<const AlgorithmView> algorithms,
                const ModelSet& models, const Policy& policy,
                const models::contention::Placement* placement = nullptr);
// Same, over the registry.
Decision decide(const CallShape& shape, const ModelSet& models, const Policy& policy,
                const models::contention::Placement* placement = nullptr);

}  // namespace collsel

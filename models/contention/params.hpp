// The [contention] section of a model file: what the contention-aware predictions need, as the
// calibration job measured it (static-synchronous graphs, seed 003 section 3.3; the Gigabit
// Ethernet fit, seed 002 section V.A).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "models/contention/graph.hpp"
#include "models/contention/rules.hpp"

namespace collsel::models::contention {

// When the selector uses schedule simulation instead of the closed-form models.
enum class Use {
  automatic,  // "auto": when some node hosts more than one rank of the communicator, and for
              // some All-to-All calls at one rank per node (selector/decide.cpp)
  always,
  never,
};

// One measured static-synchronous graph: its edges and the penalty of every edge (first step),
// extracted from the measured times by reverse solving (seed 003 section 3.3).
struct MeasuredGraph {
  std::string name;
  std::vector<Edge> edges;
  std::vector<double> penalties;
};

struct Params {
  RuleKind rule = RuleKind::fair;
  Use use = Use::automatic;
  double alpha_s_per_byte = 0.0;        // between nodes, 1 / effective bandwidth
  double intra_alpha_s_per_byte = 0.0;  // between two ranks of one node; 0: copy cost unknown
  double reference_bytes = 0.0;         // message size of the calibration graphs
  GigeParams gige;                      // used when rule == gige
  std::vector<MeasuredGraph> measured;  // what the calibration saw (inspection, fits)

  // Empty when usable; otherwise the first problem, as a sentence.
  [[nodiscard]] std::optional<std::string> invalid_reason() const;
};

}  // namespace collsel::models::contention

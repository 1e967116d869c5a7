// `collsel simulate GRAPH --penalties FILE`: a contention graph's penalties given per step instead
// of computed by a rule, so a paper's worked example (seed 003 Fig. 3, whose penalties come from
// measurements, not from its rule) can be replayed with the CLI alone. File format: docs/TOOLS.md,
// "collsel simulate".
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/contention/graph.hpp"
#include "models/diagnostic.hpp"

namespace collsel::tools::simulate {

// One line of the file: the penalty of every communication in one step's graph.
struct StepLine {
  int line = 0;  // in the file, for messages
  std::vector<std::pair<std::string, double>> penalties;  // NAME, rho >= 1, in file order
};

struct StepPenalties {
  std::string source;
  std::vector<StepLine> steps;  // empty when the file has an error
  Diagnostics diagnostics;      // every error, one per bad line or field
};

// One step per line, in the order the solver meets them: NAME=RHO for every communication active
// in that step (running, or finishing at its end), separated by blanks; RHO a number >= 1 or a
// fraction N/D (10/3, so a printed 3.33 can be given exactly). '#' starts a comment; blank lines
// are skipped. Names are checked against the graph by `replay_rule`.
StepPenalties read_step_penalties(std::string_view text, std::string_view source);

// The rule replaying `p` on `comms`: its k-th call (the solver's k-th step) answers with line k's
// penalties. Names unknown to the graph or repeated on a line go to `diagnostics` (the rule is
// then unusable). During the solve, a step whose graph is not the communications its line names,
// or a step beyond the file's last line, throws std::invalid_argument naming the file and line.
struct ReplayRule {
  models::contention::Rule rule;
  std::shared_ptr<std::size_t> steps_used;  // lines consumed so far
};
ReplayRule replay_rule(const StepPenalties& p, std::span<const models::contention::Communication> comms,
                       const std::vector<std::string>& nodes, Diagnostics& diagnostics);

}  // namespace collsel::tools::simulate

// Penalty coefficients from measurements (seed 003 section 3.3): the reverse of the solver. A
// static-synchronous graph (every communication starts at once with the same bytes) is measured;
// sorting its communications by completion time gives its steps, the penalties of the later steps
// come from a rule (or from smaller graphs measured before), and the first step's penalties follow.
#pragma once

#include <span>
#include <vector>

#include "models/contention/graph.hpp"

namespace collsel::models::contention {

// measured_s[i]: completion time of edges[i], all started at 0 with `bytes` bytes. Returns the
// first step's penalty of every edge (>= 1 is not enforced: a measurement may say less). Throws
// std::invalid_argument on sizes that differ, non-positive times, bytes or alpha, and when the
// times do not fit `later_steps` (some edge would send all its bytes after the first step).
std::vector<double> first_step_penalties(std::span<const Edge> edges,
                                         std::span<const double> measured_s, double bytes,
                                         double alpha_s_per_byte, const Rule& later_steps);

}  // namespace collsel::models::contention

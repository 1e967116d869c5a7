// Fitting the Gigabit Ethernet penalty model (seed 002 section V.A) to measured penalties.
#pragma once

#include <span>

#include "models/contention/params.hpp"
#include "models/contention/rules.hpp"

namespace collsel::models::contention {

// One outgoing conflict (one node sending to `degree` distinct nodes that receive nothing else)
// and its measured penalty.
struct OutgoingConflict {
  int degree = 0;
  double penalty = 0.0;
};

// beta: the mean of penalty / degree over the conflicts with degree >= 2 (seed 002: 1.5 / 2 =
// 2.25 / 3 = 0.75). Throws std::invalid_argument when there is none.
double fit_beta(std::span<const OutgoingConflict> conflicts);

// The paper's closed form for one strongly penalised communication of a conflict of `degree`:
// gamma = 1 - t / (degree beta t_ref).
double gamma_from_time(double t_s, int degree, double beta, double t_ref_s);

// beta from the measured graphs that are outgoing conflicts; gamma_i and gamma_o by least squares
// of gige_penalties() against the measured penalties of all graphs, beta fixed. Graphs that carry
// no information on a gamma leave it at 0. Throws std::invalid_argument when no graph is an
// outgoing conflict or a graph's edge and penalty counts differ.
GigeParams fit_gige(std::span<const MeasuredGraph> graphs);

}  // namespace collsel::models::contention
